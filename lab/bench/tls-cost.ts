import type { Browser } from 'playwright-core';
import { launchChromium } from '../../src/agent/browser/chromium';
import { startLab, type Lab, type PortalId } from '..';
import { runLabForm, type FormRun, type LabFormEnv } from './lab-form';
import { median, round, spread, type Spread } from './stats';

/**
 * What the egress lock's TLS termination costs: the same lab form end to end on the http lab and
 * on the https lab (certificates of a CA made at lab start, trusted by the run explicitly), where
 * the egress proxy ends the browser's TLS, reads each request whole and opens verified TLS of its
 * own to the portal. Runs alternate (http, https, http, …) so the machine's load falls on both;
 * the cost is the https median over the http median, less one.
 */
export interface TlsCost {
  portal: PortalId;
  http: Spread;
  https: Spread;
  /** median(https) / median(http) − 1: 0.05 is 5% slower over https. */
  cost: number;
  /** Every run on both ended done with exactly one submission. */
  allDone: boolean;
  runs: Array<Pick<FormRun, 'status' | 'ms' | 'submitted'> & { scheme: 'http' | 'https' }>;
}

export async function measureTlsCost(httpEnv: LabFormEnv, portal: PortalId, options: { warmup: number; trials: number }): Promise<TlsCost> {
  let lab: Lab | undefined;
  let browser: Browser | undefined;
  try {
    lab = await startLab({ tls: true });
    browser = await launchChromium({ hostResolverRules: lab.hostResolverRules, portalCa: lab.tlsCa! });
    const httpsEnv: LabFormEnv = { lab, browser, store: httpEnv.store };
    for (let i = 0; i < options.warmup; i++) {
      await runLabForm(httpEnv, portal);
      await runLabForm(httpsEnv, portal);
    }
    const runs: TlsCost['runs'] = [];
    for (let i = 0; i < options.trials; i++) {
      for (const [scheme, env] of [['http', httpEnv], ['https', httpsEnv]] as const) {
        const run = await runLabForm(env, portal);
        runs.push({ scheme, status: run.status, ms: run.ms, submitted: run.submitted });
      }
    }
    const of = (scheme: 'http' | 'https') => runs.filter((r) => r.scheme === scheme).map((r) => r.ms);
    return {
      portal,
      http: spread(of('http')),
      https: spread(of('https')),
      cost: round(median(of('https')) / median(of('http')) - 1, 3),
      allDone: runs.every((r) => r.status === 'done' && r.submitted),
      runs,
    };
  } finally {
    await browser?.close().catch(() => undefined);
    await lab?.stop();
  }
}
