import type { StepRecord } from '../shared/run';
import { describeAction } from '../shared/describe-action';

/** One step as terminal lines: number, where its turn came from ([route] or the planner), action, element, verdict, outcome (and tokens when a model was called). */
export function formatStep(step: StepRecord): string[] {
  const o = step.observation;
  const where = o.flowStep ?? o.headings[0] ?? o.title;
  const tokens = step.model?.usage
    ? ` tokens in ${step.model.usage.inputTokens} (+${step.model.usage.cacheReadTokens} cached) out ${step.model.usage.outputTokens}`
    : '';
  const image = step.model?.imageSent ? ` [screenshot sent: ${step.model.imageReason ?? 'policy'}]` : '';
  const from = step.source === 'route' ? ' [route]' : step.source === 'planner' ? ` [${step.model?.planner ?? 'planner'}]` : '';
  const lines = [`#${step.index}${from} ${where} — ${o.controls.length} controls${o.errors.length ? `, ${o.errors.length} error(s)` : ''}${tokens}${image}`];
  for (const event of step.events) lines.push(`   · ${event.type}: ${event.message}`);
  for (const a of step.actions) {
    const approval = a.approval ? ` [${a.approval.decision === 'approve' ? 'approved' : 'denied'} by ${a.approval.by}]` : '';
    const source = a.verdict.provenance ? ` ← ${a.verdict.provenance.source}:${a.verdict.provenance.field}` : '';
    const message = a.outcome.message ? ` (${a.outcome.message})` : '';
    lines.push(`   ${describeAction(a.action, a.element)}${source} → ${a.verdict.verdict}${approval} → ${a.outcome.status}${message} ${a.outcome.ms}ms`);
  }
  return lines;
}
