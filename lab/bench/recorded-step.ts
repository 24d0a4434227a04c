import { crc32 } from 'node:zlib';
import { digest, sha256Hex } from '../../src/base/canonical-json';
import type { Observation } from '../../src/shared/observation';
import { StepRecord, type StepAction } from '../../src/shared/run';

/**
 * A realistic step to record, for the store measurements: a real lab page's observation and a
 * real screenshot of it, the actions the rules planner takes on such a page (fill the first
 * field from the case, press the page's continue button) with their verdicts and outcomes.
 *
 * Each step's PNG is made unique (a `tEXt` chunk naming the step, a valid PNG), as in a real run
 * every screenshot differs: every step writes a new screenshot blob, none is deduplicated.
 */

export interface PageSample {
  observation: Observation;
  /** PNG screenshot of the page. */
  screenshot: Uint8Array;
}

export function recordedStep(runId: string, index: number, sample: PageSample): { step: StepRecord; png: Buffer } {
  const png = uniquePng(sample.screenshot, `portal-desk bench step ${index}`);
  const observation: Observation = { ...sample.observation, readId: `r${index + 1}` };
  const fillable = observation.controls.find((c) => c.role === 'textbox');
  const next = observation.controls.find((c) => c.role === 'button') ?? observation.controls[0];
  const at = (s: number) => new Date(Date.UTC(2026, 5, 1, 9, 0, 0) + index * 4000 + s * 1000).toISOString();
  const actions: StepAction[] = [];
  if (fillable) {
    actions.push({
      action: { type: 'fill', ref: fillable.ref, field: 'business_name' },
      element: fillable.label,
      verdict: { verdict: 'allow', rule: 'provenance', reason: 'value from case field "business_name"', provenance: { source: 'case', field: 'business_name' } },
      outcome: { status: 'done', message: 'settled in 60 ms', ms: 140 },
    });
  }
  if (next) {
    actions.push({
      action: { type: 'click', ref: next.ref },
      element: next.label,
      verdict: { verdict: 'allow', rule: 'hosts', reason: 'stays on the portal' },
      outcome: { status: 'done', message: 'settled in 180 ms', ms: 420 },
    });
  }
  const step = StepRecord.parse({
    runId,
    index,
    startedAt: at(0),
    endedAt: at(3),
    observation,
    observationHash: digest(observation),
    screenshotHash: sha256Hex(png),
    reasoning: `Fill what the case has for this section and continue (step ${index}).`,
    model: { planner: 'rules', ms: 2, imageSent: false },
    actions,
    events: index === 0 ? [{ type: 'navigation', message: `Opening the portal at ${observation.url}`, at: at(0) }] : [],
  });
  return { step, png };
}

/** The PNG with a `tEXt` chunk (`Comment`) inserted right after IHDR: same image, different bytes. */
export function uniquePng(png: Uint8Array, comment: string): Buffer {
  const bytes = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  const afterIhdr = 8 + 4 + 4 + 13 + 4;
  if (bytes.subarray(12, 16).toString('latin1') !== 'IHDR') throw new Error('not a PNG with IHDR first');
  const body = Buffer.concat([Buffer.from('tEXt', 'latin1'), Buffer.from(`Comment\u0000${comment}`, 'latin1')]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length - 4);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([bytes.subarray(0, afterIhdr), length, body, crc, bytes.subarray(afterIhdr)]);
}
