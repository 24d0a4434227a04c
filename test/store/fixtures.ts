import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { digest, sha256Hex } from '../../src/base/canonical-json';
import { Observation, type Control } from '../../src/shared/observation';
import { type RunRecord, StepRecord, type StepAction, type TokenUsage } from '../../src/shared/run';

/** Step and run fixtures for the store tests: realistic shapes, built through the shared zod schemas. */

export function tempDir(prefix = 'pd-store-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function tempDbPath(name = 'portal-desk.sqlite'): string {
  return join(tempDir(), name);
}

/** A real (grey, `size`×`size`) PNG whose pixels depend on `seed`. */
export function png(seed: number, size = 32): Buffer {
  const raw = Buffer.alloc((size + 1) * size);
  let x = (Math.imul(seed + 1, 2654435761) ^ 0x9e3779b9) >>> 0;
  for (let row = 0; row < size; row++) {
    raw[row * (size + 1)] = 0; // filter: none
    for (let col = 0; col < size; col++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      raw[row * (size + 1) + 1 + col] = x >>> 24;
    }
  }
  const chunk = (type: string, data: Buffer): Buffer => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function newRun(overrides: Partial<RunRecord> = {}): Omit<RunRecord, 'stepCount' | 'usage' | 'headHash'> {
  const id = overrides.id ?? 'run-2026-03-02-a1';
  return {
    id,
    caseId: 'C-2026-0142',
    clientId: 'lakshmi-stores',
    portal: 'shops',
    task: 'shop-registration-renewal',
    planner: 'claude',
    model: 'claude-sonnet-4-5',
    approveMode: 'ask',
    status: 'running',
    caseJson: JSON.stringify({ caseId: 'C-2026-0142', fields: { business_name: 'Lakshmi Stores', street: '14 Canal Road', county: 'Kildare' } }),
    startedAt: '2026-03-02T09:15:00.000Z',
    ...overrides,
  };
}

function control(ref: string, role: string, name: string, extra: Partial<Control> = {}): Control {
  return {
    ref,
    role,
    name,
    nameSource: 'accessible',
    disabled: false,
    required: false,
    invalid: false,
    gated: false,
    label: `${role} "${name}"`,
    ...extra,
  };
}

/** The "Business address" page of the lab's shop registration renewal, as one read saw it. */
export function addressPage(index: number, readId = `read-${index}`): Observation {
  return Observation.parse({
    readId,
    url: 'https://shops.lab.portal-desk.test/renewal/address?draft=D-7741',
    title: 'Business address – Renew your shop registration',
    flowStep: 'Step 2 of 4: Business address',
    headings: ['Renew your shop registration', 'Business address'],
    text:
      'Renew your shop registration. Draft reference D-7741. Step 2 of 4: Business address. ' +
      'Enter the address where the shop trades. If the shop has moved since the last registration, tell us the new address — ' +
      'a registration at the wrong address can be cancelled. Fields marked * are required. ' +
      `Read ${index}: ` +
      'Building and street * Town or city * County * Eircode (optional) Is this also the correspondence address? Yes No ' +
      'Save draft Continue. Need help? Call 0818 123 456, Monday to Friday, 9am to 5pm. Café opening hours — Ünïcödé ✓',
    textTruncated: false,
    errors: index % 5 === 3 ? [{ message: 'Enter the town or city', field: 'town' }] : [],
    controls: [
      control(`r${index}c1`, 'textbox', 'Building and street', { inputType: 'text', required: true, value: '14 Canal Road' }),
      control(`r${index}c2`, 'textbox', 'Town or city', { inputType: 'text', required: true, value: '', invalid: index % 5 === 3 }),
      control(`r${index}c3`, 'combobox', 'County', {
        options: ['Select a county', 'Carlow', 'Dublin', 'Kildare', 'Kilkenny', 'Laois', 'Meath', 'Wicklow'],
        selected: 'Select a county',
        required: true,
      }),
      control(`r${index}c4`, 'textbox', 'Eircode (optional)', { inputType: 'text' }),
      control(`r${index}c5`, 'radio', 'Yes', { inputType: 'radio', checked: false, group: 'Is this also the correspondence address?' }),
      control(`r${index}c6`, 'radio', 'No', { inputType: 'radio', checked: false, group: 'Is this also the correspondence address?' }),
      control(`r${index}c7`, 'checkbox', 'I confirm the shop trades from this address', { inputType: 'checkbox', checked: 'mixed' }),
      control(`r${index}c8`, 'button', 'Save draft'),
      control(`r${index}c9`, 'button', 'Continue', { href: 'https://shops.lab.portal-desk.test/renewal/address' }),
      control(`r${index}c10`, 'link', 'Need help?', { href: 'https://shops.lab.portal-desk.test/help' }),
      control(`r${index}c11`, 'button', '', { nameSource: 'none', label: 'button (unnamed)' }),
    ],
    omittedControls: 0,
    unnamedControls: 1,
    frameHosts: [],
    hasPasswordField: false,
    readMs: 41.5 + index,
  });
}

export const SOME_USAGE: TokenUsage = { inputTokens: 4210, outputTokens: 188, cacheReadTokens: 3900, cacheWriteTokens: 0, costUsd: 0.00421 };

export interface StepOptions {
  /** PNG to record with the step; null for none. Default: a PNG unique to the index. */
  screenshot?: Buffer | null;
  /** Add a gated submit action the clerk decided on. */
  approval?: { decision: 'approve' | 'deny'; by: string; note?: string };
  usage?: TokenUsage | null;
  events?: StepRecord['events'];
}

/** One whole step, as the engine would record it, with the PNG to record alongside. */
export function buildStep(runId: string, index: number, options: StepOptions = {}): { step: StepRecord; png: Buffer | null } {
  const shot = options.screenshot === undefined ? png(index) : options.screenshot;
  const observation = addressPage(index);
  const at = (s: number) => new Date(Date.UTC(2026, 2, 2, 9, 15, 0) + index * 7000 + s * 1000).toISOString();
  const actions: StepAction[] = [
    {
      action: { type: 'fill', ref: `r${index}c2`, field: 'town' },
      element: 'textbox "Town or city"',
      verdict: { verdict: 'allow', rule: 'provenance', reason: 'value from case field "town"', provenance: { source: 'case', field: 'town' } },
      outcome: { status: 'done', ms: 120 },
    },
    {
      action: { type: 'select', ref: `r${index}c3`, field: 'county' },
      element: 'combobox "County"',
      verdict: { verdict: 'allow', rule: 'provenance', reason: 'value from case field "county"', provenance: { source: 'case', field: 'county' } },
      outcome: { status: 'done', ms: 95 },
    },
  ];
  if (options.approval) {
    const approved = options.approval.decision === 'approve';
    actions.push({
      action: { type: 'click', ref: `r${index}c9` },
      element: 'button "Submit application"',
      verdict: { verdict: 'needs_approval', rule: 'risky-control', reason: 'the control says "submit"' },
      approval: { decision: options.approval.decision, by: options.approval.by, at: at(4), ...(options.approval.note ? { note: options.approval.note } : {}) },
      outcome: approved ? { status: 'done', ms: 310 } : { status: 'denied', message: 'the clerk denied it', ms: 0 },
    });
  } else {
    actions.push({
      action: { type: 'click', ref: `r${index}c9` },
      element: 'button "Continue"',
      verdict: { verdict: 'allow', rule: 'hosts', reason: 'stays on shops.lab.portal-desk.test' },
      outcome: { status: 'done', ms: 640 },
    });
  }
  const usage = options.usage === undefined ? SOME_USAGE : options.usage;
  const step = StepRecord.parse({
    runId,
    index,
    startedAt: at(0),
    endedAt: at(6),
    observation,
    observationHash: digest(observation),
    screenshotHash: shot ? sha256Hex(shot) : null,
    reasoning: `Step ${index}: the address page is open; fill the town and county from the case, then continue.`,
    model: {
      planner: 'claude',
      model: 'claude-sonnet-4-5',
      requestDigest: sha256Hex(`request ${runId} ${index}`),
      responseDigest: sha256Hex(`response ${runId} ${index}`),
      ...(usage ? { usage } : {}),
      ms: 1830,
      imageSent: index === 0,
      ...(index === 0 ? { imageReason: 'first read of the portal' } : {}),
    },
    actions,
    events: options.events ?? (index === 0 ? [{ type: 'navigation', message: 'Opening the portal at https://shops.lab.portal-desk.test/', at: at(0) }] : []),
  });
  return { step, png: shot };
}
