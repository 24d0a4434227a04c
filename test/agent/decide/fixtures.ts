import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { AnthropicPlanner, type AnthropicPlannerOptions } from '../../../src/agent/decide/anthropic';
import type { CaseView, PlanInput } from '../../../src/agent/decide/planner';
import type { Action, Turn } from '../../../src/shared/action';
import { Control, Observation } from '../../../src/shared/observation';
import type { StepAction } from '../../../src/shared/run';
import type { MessagesApi, RecordedRequest, WireBlock, WireMessage } from '../../../lab/messages-api';

/** Synthetic observations and planner inputs, built through the zod contracts. */

export const TEST_KEY = 'sk-ant-test-loopback-0000';

export function control(partial: Partial<Control> & Pick<Control, 'ref' | 'role' | 'name'>): Control {
  return Control.parse({
    nameSource: 'accessible',
    disabled: false,
    required: false,
    invalid: false,
    gated: false,
    label: `${partial.role} "${partial.name}"`,
    ...partial,
  });
}

let reads = 0;

export function observation(partial: Partial<Observation> = {}): Observation {
  reads += 1;
  return Observation.parse({
    readId: `r${reads}`,
    url: 'https://shops.portal.test/apply/details',
    title: 'Business details',
    flowStep: 'Step 1 of 3',
    headings: ['Business details'],
    text: 'Tell us about the business.',
    textTruncated: false,
    errors: [],
    controls: [],
    omittedControls: 0,
    unnamedControls: 0,
    frameHosts: [],
    hasPasswordField: false,
    readMs: 12,
    ...partial,
  });
}

/** A details page: two text boxes, a district drop-down and Continue. */
export function detailsPage(read = 'r10', extra: Partial<Observation> = {}): Observation {
  return observation({
    readId: read,
    controls: [
      control({ ref: `${read}c1`, role: 'textbox', name: 'Business name', required: true }),
      control({ ref: `${read}c2`, role: 'textbox', name: 'Owner name', required: true }),
      control({ ref: `${read}c3`, role: 'combobox', name: 'District', options: ['North', 'South'], selected: 'North' }),
      control({ ref: `${read}c4`, role: 'button', name: 'Continue' }),
    ],
    ...extra,
  });
}

export const CASE: CaseView = {
  caseId: 'case-017',
  portal: 'shops',
  task: 'shop-registration-renewal',
  fields: { business_name: 'Kestrel Hardware Ltd', owner_name: 'Amaka Obi', district: 'South', has_employees: true },
  aliases: { business_name: ['Trading name'] },
  declarations: ['I confirm the information is correct'],
};

export function stepAction(action: Action, status: StepAction['outcome']['status'] = 'done', verdict: StepAction['verdict']['verdict'] = 'allow'): StepAction {
  return {
    action,
    verdict: { verdict, rule: verdict === 'allow' ? 'provenance' : 'risky-control', reason: verdict === 'allow' ? 'value from the case' : 'submits the application' },
    outcome: { status, ms: 5 },
  };
}

/** What happened to a whole turn: every action done. */
export function ran(turn: Turn, status: StepAction['outcome']['status'] = 'done'): StepAction[] {
  return turn.actions.map((action) => stepAction(action, status));
}

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A real grey-scale PNG of this size: the loopback reads its header as the API would. Blank, or
 * `noise` (random pixels, which do not compress: a file about width × height bytes).
 */
export function pngOf(width: number, height: number, noise = false): Uint8Array {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8);
  const rows = noise ? randomBytes((width + 1) * height) : Buffer.alloc((width + 1) * height);
  if (noise) for (let row = 0; row < height; row += 1) rows[row * (width + 1)] = 0;
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return new Uint8Array(Buffer.concat([signature, pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(rows)), pngChunk('IEND', Buffer.alloc(0))]));
}

/** A viewport-sized screenshot (1280×900, as the guarded context opens pages). */
export const PNG = pngOf(1280, 900);

export function input(step: number, obs: Observation, previous: StepAction[] = [], notes: string[] = []): PlanInput & { screenshots: number } {
  const result = {
    step,
    observation: obs,
    previous,
    notes,
    screenshots: 0,
    screenshot: async () => {
      result.screenshots += 1;
      return PNG;
    },
  };
  return result;
}

export function plannerFor(api: MessagesApi, options: AnthropicPlannerOptions = {}): AnthropicPlanner {
  return new AnthropicPlanner({ env: { ANTHROPIC_API_KEY: TEST_KEY, ANTHROPIC_BASE_URL: api.url }, ...options });
}

export function messagesOf(request: RecordedRequest): WireMessage[] {
  return request.body.messages ?? [];
}

export function blocks(message: WireMessage | undefined): WireBlock[] {
  if (!message) return [];
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** All blocks of a request, with tool_result contents flattened in. */
export function allBlocks(request: RecordedRequest): WireBlock[] {
  const out: WireBlock[] = [];
  for (const message of messagesOf(request)) {
    for (const block of blocks(message)) {
      out.push(block);
      if (block.type === 'tool_result' && Array.isArray(block['content'])) out.push(...(block['content'] as WireBlock[]));
    }
  }
  return out;
}

export const turnOf = (actions: Record<string, unknown>[], reasoning = 'test turn', wantScreenshot = false) => ({ reasoning, actions, want_screenshot: wantScreenshot });
