import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldNameFor } from '../../src/agent/decide/rules/rules-planner';
import { compareSubmission } from '../../lab';
import { formFillingModel, reply } from '../../lab/messages-api';
import { caseFrom, occurrences, RealityBench, ScriptedInputs, stepsIntact } from './support';
import { useMessagesApi } from '../support/messages-api';

/**
 * Questions for the clerk: a value the case lacks (the answer joins the case with provenance
 * "clerk" and the run goes on), a security answer (a secret) and an explicit confirmation.
 */
describe('questions for the clerk', () => {
  const bench = new RealityBench();
  const serve = useMessagesApi();
  beforeAll(() => bench.start(), 120_000);
  afterAll(() => bench.stop());

  it('field names come from labels', () => {
    expect(fieldNameFor('Declarant capacity')).toBe('declarant_capacity');
    expect(fieldNameFor('PAN of owner (optional)')).toBe('pan_of_owner');
    expect(fieldNameFor('2nd phone')).toBe('field_2nd_phone');
  });

  it('rules planner: a required field the case lacks blocks the section; the clerk answers; the value is submitted with provenance clerk', async () => {
    const full = caseFrom('shops-renewal-anand-bakery.json');
    const { declarant_capacity: wanted, ...fields } = full.fields;
    const { declarant_capacity: _alias, ...aliases } = full.aliases;
    const caseFile = { ...full, caseId: 'shops-renewal-anand-bakery-no-capacity', fields, aliases };
    const inputs = new ScriptedInputs((req) => (req.kind === 'missing_value' && req.field === 'declarant_capacity' ? String(wanted) : null));

    const run = await bench.run(caseFile, { inputs });
    expect(run.status, run.reason).toBe('done');
    expect(inputs.asked).toHaveLength(1);
    expect(inputs.asked[0]).toMatchObject({ kind: 'missing_value', field: 'declarant_capacity' });
    expect(inputs.asked[0]!.question).toMatch(/Declarant capacity/);

    const submissions = bench.lab.submissions({ clientId: caseFile.clientId });
    expect(submissions).toHaveLength(1);
    expect(compareSubmission(full.fields, submissions[0]!.fields)).toEqual([]);

    const actions = (await run.store.listSteps(run.runId)).flatMap((s) => s.actions);
    const ask = actions.find((a) => a.action.type === 'ask')!;
    expect(ask.outcome).toMatchObject({ status: 'done', message: `clerk answered ${String(wanted)}` });
    const filled = actions.find((a) => a.action.type === 'select' && a.action.field === 'declarant_capacity' && a.outcome.status === 'done')!;
    expect(filled.verdict.provenance).toEqual({ source: 'clerk', field: 'declarant_capacity' });
    const stored = JSON.parse((await run.store.getRun(run.runId))!.caseJson) as { clerkValues: Record<string, string> };
    expect(stored.clerkValues).toEqual({ declarant_capacity: wanted });
    expect((await stepsIntact(run.store, run.runId)).ok).toBe(true);
  }, 400_000);

  it('a model asks for a security answer (kept secret) and a confirmation; both answered, the run goes on and submits once', async () => {
    const caseFile = caseFrom('power-name-change-fernandes.json');
    const secretAnswer = 'Vasco-da-Gama-1498';
    const filler = formFillingModel(caseFile.fields, {
      aliases: caseFile.aliases,
      declarations: caseFile.declarations,
      continueButton: /^(continue|next|save and continue|proceed|start a new application)\b/i,
      applicationNumber: /\b(PWR-\d{4}-\d{6})\b/,
    });
    let asked = 0;
    const api = await serve((request) => {
      asked += 1;
      if (asked === 1) {
        return reply.toolUse({ reasoning: 'The portal asks a security question.', actions: [{ type: 'ask', kind: 'security_answer', question: 'What is the answer to the account’s security question?', field: 'security_answer' }], want_screenshot: false });
      }
      if (asked === 2) {
        return reply.toolUse({ reasoning: 'Check with the clerk first.', actions: [{ type: 'ask', kind: 'confirmation', question: 'Go ahead with the name change for this connection?', field: null }], want_screenshot: false });
      }
      return filler(request);
    });
    const inputs = new ScriptedInputs((req) => (req.kind === 'security_answer' ? secretAnswer : req.kind === 'confirmation' ? 'yes' : null));
    const lines: string[] = [];
    const run = await bench.run(caseFile, {
      planner: 'anthropic',
      env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.url },
      inputs,
      listener: { log: (l) => lines.push(l) },
    });
    expect(run.status, run.reason).toBe('done');
    expect(inputs.asked.map((a) => a.kind)).toEqual(['security_answer', 'confirmation']);
    expect(bench.lab.submissions({ clientId: caseFile.clientId })).toHaveLength(1);

    const steps = await run.store.listSteps(run.runId);
    const asks = steps.flatMap((s) => s.actions).filter((a) => a.action.type === 'ask');
    expect(asks.map((a) => a.outcome.status)).toEqual(['done', 'done']);
    expect(asks[0]!.outcome.message).toMatch(/^clerk answered •+$/);
    // The secret answer is nowhere: not in the store's export, the log, or any model request.
    expect(occurrences(JSON.stringify(await run.store.exportRun(run.runId)), secretAnswer)).toBe(0);
    expect(occurrences(lines.join('\n'), secretAnswer)).toBe(0);
    expect(api.requests.reduce((n, r) => n + occurrences(r.raw, secretAnswer), 0)).toBe(0);
    // The confirmation reached the model as a note.
    expect(api.requests.some((r) => r.raw.includes('The clerk confirmed: Go ahead with the name change'))).toBe(true);
  }, 400_000);
});
