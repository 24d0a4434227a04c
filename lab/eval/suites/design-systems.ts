import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '../../../src/agent/browser/chromium';
import { loadCaseFile } from '../../../src/agent/case/case-files';
import type { CaseFile } from '../../../src/shared/case-file';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest, InputRequest, InputSource } from '../../../src/shared/clerk';
import { executeRun } from '../../../src/service/run-service';
import { openStore } from '../../../src/store';
import { DS_PORTALS, STATES, type DsPortal, type DsSubmission } from '../../design-systems/data';
import { designSystemProfile } from '../../design-systems/profile';
import type { EvalCaseResult, EvalOptions, EvalReport, EvalSuite } from '../suite';
import { startDesignSystemsLab } from '../../design-systems/server';

/**
 * The design-system family's known-answer cases (lab/design-systems/cases), each run through the
 * real engine with the given planner and a clerk who approves what is asked, scored field by field
 * from what the portal received.
 */

const DS_CASES_DIR = join(__dirname, '..', '..', 'design-systems', 'cases');

export function designSystemCases(): string[] {
  return readdirSync(DS_CASES_DIR).filter((f) => f.endsWith('.json')).sort();
}

class CountingClerk implements ApprovalGate {
  readonly asked: ApprovalRequest[] = [];
  async request(req: ApprovalRequest): Promise<ApprovalDecision> {
    this.asked.push(req);
    return { decision: 'approve', by: 'eval-clerk' };
  }
}
class SilentClerk implements InputSource {
  readonly asked: InputRequest[] = [];
  async ask(req: InputRequest): Promise<string | null> {
    this.asked.push(req);
    return null;
  }
}

const text = (c: CaseFile, k: string): string => (typeof c.fields[k] === 'string' ? (c.fields[k] as string) : '');
const [y, m, d] = [0, 1, 2];

/** What the portal should have received for a case: each of its fields as the portal stores it. */
function expectedFields(portal: DsPortal, c: CaseFile): Record<string, string> {
  if (portal === 'uswds') {
    const date = text(c, 'date_of_birth').split('-');
    return {
      full_name: text(c, 'full_name'),
      date_of_birth: `${date[m]}/${date[d]}/${date[y]}`,
      state: Object.keys(STATES).find((code) => STATES[code] === text(c, 'state')) ?? '?',
      phone: text(c, 'phone_number').replace(/\D/g, '').replace(/^(\d{3})(\d{3})(\d{4})$/, '$1-$2-$3'),
      contact_method: text(c, 'contact_method').toLowerCase(),
      declaration: 'yes',
    };
  }
  if (portal === 'govuk') {
    const email = text(c, 'email_address');
    return {
      full_name: text(c, 'full_name'),
      nationality: text(c, 'nationality'),
      contact: text(c, 'contact_method').toLowerCase(),
      email,
      phone: text(c, 'phone_number'),
      postcode: text(c, 'postcode'),
      address: [text(c, 'address_line_1'), text(c, 'town'), text(c, 'postcode')].join(', '),
    };
  }
  const date = text(c, 'date_of_the_incident').split('-');
  const out: Record<string, string> = { case_reference: text(c, 'case_reference'), claim_date: `${date[d]}/${date[m]}/${date[y]}` };
  for (const [k, value] of Object.entries(c.fields)) {
    const person = /^people\[(\d+)\]\.(\w+)$/.exec(k);
    if (person && typeof value === 'string') out[`people[${person[1]}][${person[2]}]`] = value;
  }
  return out;
}

/** Field-by-field differences between what arrived and what the case says (dates compared as dates). */
function wrongValues(portal: DsPortal, got: DsSubmission, c: CaseFile): string[] {
  const want = expectedFields(portal, c);
  const out: string[] = [];
  const sameDate = (a: string, b: string) => a.split('/').map(Number).join('/') === b.split('/').map(Number).join('/');
  for (const key of new Set([...Object.keys(want), ...Object.keys(got.fields)])) {
    const g = got.fields[key] ?? '';
    const w = want[key] ?? '';
    if (g === w || (key === 'claim_date' && sameDate(g, w))) continue;
    out.push(`${key}: got ${JSON.stringify(g)}, want ${JSON.stringify(w)}`);
  }
  for (const [name, path] of Object.entries(c.documents)) {
    const sha = createHash('sha256').update(readFileSync(join(c.folder ?? '', path))).digest('hex');
    if (got.files[name]?.sha256 !== sha) out.push(`document ${name}: got ${got.files[name]?.file ?? 'none'}, want ${path}`);
  }
  return out;
}

export interface DsCaseResult {
  caseId: string;
  portal: DsPortal;
  status: string;
  reason: string | undefined;
  applicationNumber: string | undefined;
  submissions: number;
  wrong: string[];
  approvals: number;
  questions: number;
  steps: number;
}

/** Runs the given cases (default: all) one after another against one fresh family of portals. */
export async function runDesignSystems(options: { only?: string[]; planner?: 'rules' | 'anthropic'; log?: (line: string) => void } = {}): Promise<DsCaseResult[]> {
  const lab = await startDesignSystemsLab();
  const browser = await launchChromium({ hostResolverRules: lab.hostResolverRules });
  const store = openStore(join(mkdtempSync(join(tmpdir(), 'pd-ds-')), 'ds.sqlite'));
  const results: DsCaseResult[] = [];
  try {
    for (const file of options.only ?? designSystemCases()) {
      const caseFile = loadCaseFile(join(DS_CASES_DIR, file));
      const portal = DS_PORTALS.find((p) => caseFile.portal === `ds-${p}`);
      if (!portal) throw new Error(`${file}: portal "${caseFile.portal}" is not one of the design-system family`);
      const clerk = new CountingClerk();
      const inputs = new SilentClerk();
      const before = lab.submissions().length;
      const run = await executeRun(
        { store, browser, approvals: clerk, inputs, credentials: { get: async () => null } },
        { caseFile, profile: designSystemProfile(portal, lab.port), planner: options.planner ?? 'rules', approveMode: 'ask', limits: { maxSteps: 20 } },
      );
      const received = lab.submissions().slice(before);
      const wrong = received.length === 1 ? wrongValues(portal, received[0]!, caseFile) : [];
      const result: DsCaseResult = {
        caseId: caseFile.caseId,
        portal,
        status: run.status,
        reason: run.reason,
        applicationNumber: run.applicationNumber,
        submissions: received.length,
        wrong,
        approvals: clerk.asked.length,
        questions: inputs.asked.length,
        steps: run.steps,
      };
      options.log?.(`${caseFile.caseId}: ${run.status} ${run.applicationNumber ?? run.reason ?? ''} (${received.length} submission(s), ${wrong.length} wrong, ${clerk.asked.length} approval(s), ${run.steps} steps)${wrong.length ? ` ${wrong.join('; ')}` : ''}`);
      results.push(result);
    }
  } finally {
    store.close();
    await browser.close();
    await lab.stop();
  }
  return results;
}

/**
 * `portal-desk eval --suite design-systems`: the design-system family's known-answer cases (the
 * first case of each portal; `--full`: all). A case passes when the run ends done with the number
 * the portal issued, the portal holds exactly one submission for it with no wrong value, and the
 * clerk was asked once. Bar: 95% of cases.
 */
export const designSystemsSuite: EvalSuite = {
  name: 'design-systems',
  description: 'design-system lab portals (USWDS, GOV.UK Frontend with accessible-autocomplete, MoJ Frontend) from the packages\' own code: known-answer cases',
  models: ['rules', 'anthropic'],
  async run(options: EvalOptions): Promise<EvalReport> {
    const files = designSystemCases().filter((f) => options.full || /^ds-[a-z]+-01-/.test(f));
    const runs = await runDesignSystems({ only: files, planner: options.model === 'anthropic' ? 'anthropic' : 'rules', log: options.log });
    const results: EvalCaseResult[] = runs.map((r) => {
      const pass = r.status === 'done' && r.submissions === 1 && r.wrong.length === 0 && r.approvals === 1;
      return {
        id: r.caseId,
        pass,
        detail: pass ? `done ${r.applicationNumber ?? ''} in ${r.steps} steps` : `${r.status}: ${r.reason ?? ''}${r.wrong.length ? `; ${r.wrong.join('; ')}` : ''}`,
        metrics: { portal: r.portal, status: r.status, steps: r.steps, submissions: r.submissions, field_mismatches: r.wrong.length, approvals_asked: r.approvals, questions_asked: r.questions },
      };
    });
    const completed = results.filter((r) => r.pass).length;
    const rate = results.length ? completed / results.length : 0;
    return { suite: 'design-systems', model: options.model, results, summary: { cases: results.length, completed, completion_rate: Number(rate.toFixed(3)) }, ok: rate >= 0.95 };
  },
};
