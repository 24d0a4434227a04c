import type { Session } from 'electron';
import type { HostPolicy } from '../shared/allowed-hosts';
import { EgressProxy } from '../agent/guard/egress-proxy';
import type { Report } from './session-hardening';

/**
 * The egress lock for the shell's portal sessions. The engine's own contexts get a per-context
 * proxy (`openGuardedContext`); the shell's in-process transport makes virtual contexts that
 * ignore a context proxy, so the lock is set here on the Electron session instead
 * (`session.setProxy`, loopback included with `<-loopback>`): every request of the client's
 * partition, workers and requests sent as a page unloads included, goes through a proxy that
 * lets only the addresses of the portals whose runs live in that session through.
 *
 * One proxy per session, remade when the set of portals changes (a client has one run per portal
 * at a time); a session with no run keeps a proxy that allows nothing.
 */
export class SessionEgress {
  private readonly locks = new Map<Session, { key: string; proxy: Promise<EgressProxy> }>();

  constructor(
    private readonly report: Report,
    /** The app's `--host-resolver-rules` (the lab's names), which the proxy applies when it connects. */
    private readonly hostResolverRules: string,
  ) {}

  /** Points `session` at a proxy for exactly `policies` (the portals of the runs in it). */
  async lock(session: Session, policies: readonly HostPolicy[]): Promise<void> {
    const policy = unionOf(policies);
    const key = JSON.stringify(policy);
    const current = this.locks.get(session);
    if (current?.key === key) {
      await current.proxy;
      return;
    }
    const proxy = EgressProxy.start(policy, { hostResolverRules: this.hostResolverRules });
    this.locks.set(session, { key, proxy });
    const started = await proxy;
    started.reportTo((event) => this.report(event.detail));
    await session.setProxy({ proxyRules: hostPort(started.url), proxyBypassRules: '<-loopback>' });
    await session.closeAllConnections();
    if (current) void current.proxy.then((old) => old.close());
  }

  async closeAll(): Promise<void> {
    const proxies = [...this.locks.values()].map((l) => l.proxy);
    this.locks.clear();
    await Promise.all(proxies.map(async (p) => (await p).close()));
  }
}

/** Every address any of `policies` allows; none allows nothing. */
function unionOf(policies: readonly HostPolicy[]): HostPolicy {
  return {
    name: policies.map((p) => p.name).join(', ') || 'no run',
    allowedHosts: [...new Set(policies.flatMap((p) => p.allowedHosts))].sort(),
    allowHttp: policies.some((p) => p.allowHttp),
  };
}

function hostPort(url: string): string {
  return new URL(url).host;
}
