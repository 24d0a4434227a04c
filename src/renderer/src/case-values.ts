import type { RunRecord } from '../../shared/run';

/** The case fields and clerk answers a run was started with, so the log can show the value behind a typed field. */
export interface CaseValues {
  fields: Record<string, string | boolean>;
  clerk: Record<string, string>;
  planner: 'rules' | 'anthropic';
  layout?: 'original' | 'redesigned';
}

const parsed = new Map<string, CaseValues>();

export function caseValues(run: RunRecord): CaseValues {
  const key = `${run.id}:${run.caseJson.length}`;
  let values = parsed.get(key);
  if (!values) {
    values = { fields: {}, clerk: {}, planner: 'rules' };
    try {
      const raw = JSON.parse(run.caseJson) as {
        caseFile?: { fields?: Record<string, string | boolean> };
        clerkValues?: Record<string, string>;
        planner?: string;
        layout?: string;
      };
      values = {
        fields: raw.caseFile?.fields ?? {},
        clerk: raw.clerkValues ?? {},
        planner: raw.planner === 'anthropic' ? 'anthropic' : 'rules',
        ...(raw.layout === 'original' || raw.layout === 'redesigned' ? { layout: raw.layout } : {}),
      };
    } catch {
      // An unreadable case copy: the log shows field names without values.
    }
    parsed.set(key, values);
  }
  return values;
}
