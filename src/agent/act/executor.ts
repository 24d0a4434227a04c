import type { Locator, Page } from 'playwright-core';
import type { Action } from '../../shared/action';
import type { FieldValue } from '../../shared/case-file';
import type { CaseDocument } from '../case/documents';
import type { Control } from '../../shared/observation';
import type { Outcome } from '../../shared/outcome';
import { LivePageRead } from '../observe/observer';
import type { PageRead } from '../observe/page-read';
import { bringIntoView } from './into-view';
import { chooseFromList, chooseSuggestion, dateOfFill, pickDate, typeAndReadBack, WidgetRefusal, type Acted } from './widgets';
import { heldBy, words } from './read-back';
import type { ValueFormat } from '../../shared/value-format';
import { PageActivity, settle, type SettleOptions } from './settle';
import { errorMessage } from '../../base/error-text';

/**
 * The executor: runs ONE already-guarded action against the page and says what happened.
 *
 * - A ref is resolved through the read it came from. A ref of another read, of a superseded
 *   read, or whose element is gone answers `unknown_ref` at once, and nothing is touched.
 * - Every playwright call carries a short timeout (5 s by default), never the 30 s default.
 * - After an action that did something, the page is given time to settle (see `settle.ts`).
 * - An action that puts a value into a control (fill, select, check) reads the control back
 *   right after acting and again once the page has settled: a control that does not hold the
 *   value (cut, changed, dropped, flipped back) ends the action `error`, saying what it shows.
 * - Values come from the caller (the case file or the clerk), never from the model.
 */

interface ExecuteOptions {
  /** Timeout of each playwright call (default 5000 ms). */
  timeoutMs?: number;
  /** Timeout of a `goto` and of a navigation an action starts (default 15000 ms). */
  navigationTimeoutMs?: number;
  /** Settle options, or false to return right after the action. */
  settle?: SettleOptions | false;
  /**
   * The run only reads the portal (a `status` or `extract` task): every action is refused before
   * its control is even looked up, so nothing on the page is touched, whatever the caller passed.
   */
  readOnly?: boolean;
}

/** Actions that only type into the page; a run of them settles once, after the last (see SettleOptions.moreTypingFollows). */
export const TYPING_ACTIONS: ReadonlySet<Action['type']> = new Set(['fill', 'select', 'check', 'clear']);

/** What code hands the executor with an action: the text of a fill / select, the document of an upload. */
export type ActionValue = FieldValue | CaseDocument;

interface BatchItem {
  action: Action;
  /** The resolved value for fill / select, the checked document for upload. */
  value?: ActionValue | null;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_NAVIGATION_TIMEOUT_MS = 15_000;
/** Quiet windows per action: typing rarely starts async work, clicks often do. */
const QUIET_MS: Record<string, number> = { fill: 50, clear: 50, check: 75, select: 75, upload: 100, click: 100, press: 100, goto: 100 };

/** Raised inside the executor to end an action with a given outcome. */
class Stop extends Error {
  constructor(
    readonly status: Outcome['status'],
    message: string,
  ) {
    super(message);
  }
}

export async function executeAction(page: Page, read: PageRead, action: Action, given?: ActionValue | null, options: ExecuteOptions = {}): Promise<Outcome> {
  const value = isDocument(given) ? undefined : given;
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const navigationTimeout = options.navigationTimeoutMs ?? DEFAULT_NAVIGATION_TIMEOUT_MS;

  if (options.readOnly) {
    return { status: 'blocked', message: `not run: this run only reads the portal (a status or extract task), so no ${action.type} is carried out and nothing on the page is touched`, ms: ms() };
  }
  if (action.type === 'ask' || action.type === 'done' || action.type === 'fail') {
    return { status: 'error', message: `"${action.type}" is not a page action; the run loop handles it`, ms: ms() };
  }

  let locator: Locator | null = null;
  let control: Control | undefined;
  if ('ref' in action) {
    control = read.control(action.ref);
    if (!control) {
      return { status: 'unknown_ref', message: `${action.ref} is not a ref of the latest page read (${read.observation.readId}); observe again`, ms: ms() };
    }
    locator = await read.resolve(action.ref);
    if (!locator) {
      return { status: 'unknown_ref', message: `${control.label} (${action.ref}) is gone or the page changed since it was read; observe again`, ms: ms() };
    }
  }

  const activity = new PageActivity(page);
  try {
    let message: string | undefined;
    let acted: Acted | undefined;
    switch (action.type) {
      case 'click':
        await ensureEnabled(locator!, control!, timeout);
        await bringIntoView(locator!, timeout);
        await locator!.click({ timeout });
        break;
      case 'fill':
        acted = await fill(page, locator!, control!, value, action.format, timeout);
        break;
      case 'select':
        acted = await select(page, read, locator!, control!, value, timeout);
        break;
      case 'check':
        acted = await check(locator!, control!, action.checked, timeout);
        break;
      case 'clear':
        message = await clear(locator!, control!, timeout);
        break;
      case 'upload':
        message = await upload(locator!, control!, isDocument(given) ? given : undefined, timeout);
        break;
      case 'press':
        await page.keyboard.press(action.key === 'Space' ? ' ' : action.key);
        break;
      case 'goto': {
        // A path (as page blocks write same-origin links) is read against the page, as the guard read it.
        const response = await page.goto(new URL(action.url, page.url()).href, { waitUntil: 'domcontentloaded', timeout: navigationTimeout });
        if (response && response.status() >= 400) message = `HTTP ${response.status()} from ${new URL(response.url()).host}`;
        break;
      }
    }
    let settleMs = 0;
    if (options.settle !== false) {
      settleMs = await settle(page, activity, { quietMs: QUIET_MS[action.type], loadTimeoutMs: navigationTimeout, ...(options.settle ?? {}) });
    }
    // The control once more, now that the page has had its say: still holding what was put there?
    const mismatch = acted ? await acted.readBack(timeout) : null;
    if (mismatch) return { status: 'error', message: mismatch, ms: ms() };
    message = acted?.message ?? message;
    const note = [message, settleMs ? `settled in ${settleMs} ms` : undefined].filter(Boolean).join('; ');
    return note ? { status: 'done', message: note, ms: ms() } : { status: 'done', ms: ms() };
  } catch (err) {
    if (err instanceof Stop) return { status: err.status, message: err.message, ms: ms() };
    // An element that vanished mid-action shows up as a timeout: say what really happened.
    if (locator && 'ref' in action && !(await read.resolve(action.ref))) {
      return { status: 'unknown_ref', message: `${control!.label} (${action.ref}) went away during the ${action.type}; observe again`, ms: ms() };
    }
    return { status: 'error', message: `${action.type}${control ? ` ${control.label}` : ''} failed: ${explain(err, timeout)}`, ms: ms() };
  } finally {
    activity.dispose();
  }
}

/** Runs guarded actions in order; stops at the first that is not `done` and marks the rest `skipped`. */
export async function runBatch(page: Page, read: PageRead, items: readonly BatchItem[], options: ExecuteOptions = {}): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let stopped: Outcome | undefined;
  for (const item of items) {
    if (stopped) {
      outcomes.push({ status: 'skipped', message: `not run: an earlier action ended ${stopped.status}`, ms: 0 });
      continue;
    }
    const outcome = await executeAction(page, read, item.action, item.value, options);
    outcomes.push(outcome);
    if (outcome.status !== 'done') stopped = outcome;
  }
  return outcomes;
}

async function ensureEnabled(locator: Locator, control: Control, timeout: number): Promise<void> {
  if (await locator.isDisabled({ timeout: Math.min(timeout, 1_000) })) throw new Stop('error', `${control.label} is disabled`);
}

async function fill(page: Page, locator: Locator, control: Control, value: FieldValue | null | undefined, format: ValueFormat | undefined, timeout: number): Promise<Acted> {
  if (typeof value !== 'string') throw new Stop('error', `fill needs a text value for ${control.label}; got ${value === undefined || value === null ? 'none' : typeof value}`);
  if (control.role === 'combobox' && control.options) throw new Stop('error', `${control.label} is a drop-down list: use select, not fill`);
  if (!(await locator.isEditable({ timeout: Math.min(timeout, 1_000) }))) {
    // A read-only date box with a calendar takes its date by picking the day.
    const date = (await locator.isDisabled({ timeout: Math.min(timeout, 1_000) })) ? undefined : dateOfFill(value, format);
    if (date) return widget(() => pickDate(page, locator, control, date, timeout));
    throw new Stop('error', `${control.label} is disabled or read-only`);
  }
  return widget(async () => ({ readBack: await typeAndReadBack(locator, control, value, format, timeout) }));
}

/** Runs a widget driver; its refusal becomes the action's outcome. */
async function widget<T>(drive: () => Promise<T>): Promise<T> {
  try {
    return await drive();
  } catch (err) {
    if (err instanceof WidgetRefusal) throw new Stop(err.status, err.message);
    throw err;
  }
}

function isDocument(value: ActionValue | null | undefined): value is CaseDocument {
  return typeof value === 'object' && value !== null && 'sha256' in value;
}

/**
 * Attaches a checked case document to a file input (its bytes, as read and hashed by code), then
 * reads the input back: one file, of that name and size, or the upload is reported as not taken.
 */
async function upload(locator: Locator, control: Control, document: CaseDocument | undefined, timeout: number): Promise<string> {
  if (!document) throw new Stop('error', `upload needs a checked case document for ${control.label}; nothing was attached`);
  const kind = await locator.evaluate((el) => (el instanceof HTMLInputElement ? { file: el.type === 'file', disabled: el.disabled, multiple: el.multiple } : null), undefined, { timeout });
  if (!kind?.file) throw new Stop('error', `${control.label} is not a file input; nothing was attached`);
  if (kind.disabled) throw new Stop('error', `${control.label} is disabled`);
  await locator.setInputFiles({ name: document.file, mimeType: document.mimeType, buffer: document.bytes }, { timeout });
  const held = await locator.evaluate((el) => Array.from((el as HTMLInputElement).files ?? []).map((f) => ({ name: f.name, size: f.size })), undefined, { timeout });
  if (held.length !== 1 || held[0]!.name !== document.file || held[0]!.size !== document.bytes.length) {
    throw new Stop('error', `${control.label} does not hold ${document.file} after the upload (it holds ${held.map((f) => `${f.name}, ${f.size} bytes`).join('; ') || 'nothing'})`);
  }
  return `attached ${document.file} (${document.bytes.length} bytes, sha256 ${document.sha256.slice(0, 16)}…)`;
}

/** Input types `clear` never empties: they hold no typed text, or are code's (passwords) or the clerk's (files). */
const NOT_CLEARED: Readonly<Record<string, string>> = {
  password: 'a password box is signed in by code, never emptied by the agent',
  file: 'a file upload is attached with upload',
  checkbox: 'a checkbox is unticked with check',
  radio: 'a radio button is changed by choosing another option with check',
  hidden: 'a hidden field is not the agent’s',
  submit: 'it is a button',
  button: 'it is a button',
};

/** Empties a text box (types nothing); says so when it was empty already. */
async function clear(locator: Locator, control: Control, timeout: number): Promise<string | undefined> {
  const refusal = control.inputType ? NOT_CLEARED[control.inputType.toLowerCase()] : undefined;
  if (refusal) throw new Stop('blocked', `${control.label} is not cleared: ${refusal}`);
  if (control.role === 'combobox' && control.options) throw new Stop('error', `${control.label} is a drop-down list: choose the right option with select`);
  if (!(await locator.isEditable({ timeout: Math.min(timeout, 1_000) }))) throw new Stop('error', `${control.label} is disabled or read-only`);
  const before = await locator.inputValue({ timeout }).catch(() => null);
  await locator.clear({ timeout });
  return before === '' ? 'it was empty already' : undefined;
}

async function check(locator: Locator, control: Control, checked: boolean, timeout: number): Promise<Acted> {
  await ensureEnabled(locator, control, timeout);
  if (control.role === 'radio' && !checked) throw new Stop('error', `${control.label} is a radio button: it cannot be unticked; choose another option of its group`);
  await bringIntoView(locator, timeout);
  await tick(locator, control, checked, timeout);
  return { readBack: (t) => stillChecked(locator, control, checked, t) };
}

/**
 * Ticks (or unticks) a box the way the user would: the box itself when it takes a click, else its
 * own label, where a design system draws the box on the label and hides or covers the input (USWDS
 * tiles and checkboxes: "label intercepts pointer events"). The state is read back either way.
 */
async function tick(locator: Locator, control: Control, checked: boolean, timeout: number): Promise<void> {
  if ((await locator.isChecked({ timeout })) === checked) return;
  const takesClick = await locator.click({ trial: true, timeout: Math.min(timeout, 750) }).then(
    () => true,
    () => false,
  );
  if (takesClick) return locator.setChecked(checked, { timeout });
  const label = await userTarget(locator);
  if (!label) return locator.setChecked(checked, { timeout });
  await label.click({ timeout });
  if ((await locator.isChecked({ timeout })) !== checked) throw new Stop('error', `${control.label} is drawn on its label, and a click on the label did not ${checked ? 'tick' : 'untick'} it`);
}

/** What the user clicks for a hidden or covered input: its own label (by id, else the label around it); null when it has none. */
async function userTarget(locator: Locator): Promise<Locator | null> {
  const id = await locator.getAttribute('id').catch(() => null);
  if (id) {
    const byFor = locator.page().locator(`label[for=${JSON.stringify(id)}]`).first();
    if ((await byFor.count()) > 0 && (await byFor.isVisible())) return byFor;
  }
  const around = locator.locator('xpath=ancestor::label[1]');
  return (await around.count()) > 0 ? around : null;
}

/** A box still ticked (or not) as the action left it; null when it is, or is gone. */
async function stillChecked(locator: Locator, control: Control, checked: boolean, timeout: number): Promise<string | null> {
  const held = await heldBy(locator, timeout);
  if (!held || held.checked === null || held.checked === checked) return null;
  return `${control.label} is ${held.checked === true ? 'ticked' : held.checked === 'mixed' ? 'partly ticked' : 'not ticked'} once the page settled, after it was ${checked ? 'ticked' : 'unticked'} (the page changed it back)`;
}

/** Normalised for comparing option labels: case, width and spacing do not matter. */
function normaliseOption(text: string): string {
  return text.normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase();
}

async function select(page: Page, read: PageRead, locator: Locator, control: Control, value: FieldValue | null | undefined, timeout: number): Promise<Acted> {
  if (typeof value !== 'string') throw new Stop('error', `select needs an option label for ${control.label}; got ${value === undefined || value === null ? 'none' : typeof value}`);
  const wanted = normaliseOption(value);

  if (control.role === 'radio' || control.role === 'radiogroup') return selectRadio(read, control, value, timeout);

  await ensureEnabled(locator, control, timeout);
  const kind = await locator.evaluate(
    // No named inner functions here: tsx would wrap them in a helper the page does not have.
    (el, want) => {
      if (el instanceof HTMLSelectElement) {
        const options = Array.from(el.options);
        const labels = options.map((o) => (o.label || o.text).normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase());
        let index = labels.indexOf(want);
        if (index < 0) index = options.map((o) => o.value.normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase()).indexOf(want);
        return { tag: 'select', index, disabled: index >= 0 && options[index]!.disabled, chosen: index >= 0 ? (options[index]!.label || options[index]!.text).trim() : '', labels: options.map((o) => (o.label || o.text).trim()).slice(0, 40) };
      }
      return { tag: el.localName, index: -1, disabled: false, chosen: '', labels: [] as string[] };
    },
    wanted,
    { timeout },
  );
  if (kind.tag === 'select') {
    if (kind.index < 0) throw new Stop('error', `${control.label} has no option "${value}"; options: ${kind.labels.join(', ')}`);
    if (kind.disabled) throw new Stop('error', `option "${value}" of ${control.label} is disabled`);
    await locator.selectOption({ index: kind.index }, { timeout });
    const label = kind.chosen;
    const holds = async (t: number): Promise<string | null> => {
      const held = await heldBy(locator, t);
      return held && words(held.value) !== words(label) ? `${control.label} shows "${held.value.slice(0, 80)}" after choosing "${label}"` : null;
    };
    const now = await holds(timeout);
    if (now) throw new Stop('error', `${now} (the page changed the choice back)`);
    return {
      readBack: async (t) => {
        const later = await holds(t);
        return later ? `${later}, once the page settled (the page changed the choice back)` : null;
      },
    };
  }

  // Custom widgets: a text input with suggestions, or a drop-down drawn by the page (select2, chosen, ARIA combobox / listbox).
  await ensureEnabled(locator, control, timeout);
  if (kind.tag === 'input' || kind.tag === 'textarea') return widget(() => chooseSuggestion(page, locator, control, value, timeout));
  return widget(() => chooseFromList(page, locator, control, value, timeout));
}

/** For a radio or radio group: tick the radio of the same group whose label is the value. */
async function selectRadio(read: PageRead, control: Control, value: string, timeout: number): Promise<Acted> {
  const wanted = normaliseOption(value);
  const entry = read instanceof LivePageRead ? read.entry(control.ref) : undefined;
  const groupName = control.role === 'radiogroup' ? control.name : control.group;
  const sameGroup = (c: Control): boolean => {
    if (c.role !== 'radio' || c.frameUrl !== control.frameUrl) return false;
    if (entry?.radioName && read instanceof LivePageRead) return read.entry(c.ref)?.radioName === entry.radioName;
    return !!groupName && c.group === groupName;
  };
  const members = read.observation.controls.filter(sameGroup);
  const target = members.find((c) => normaliseOption(c.name) === wanted);
  if (!target) {
    const options = members.map((c) => c.name).join(', ');
    throw new Stop('error', `${control.label} has no option "${value}"${options ? `; options: ${options}` : ''}`);
  }
  const radio = await read.resolve(target.ref);
  if (!radio) throw new Stop('unknown_ref', `${target.label} is gone or the page changed since it was read; observe again`);
  await ensureEnabled(radio, target, timeout);
  await bringIntoView(radio, timeout);
  await tick(radio, target, true, timeout);
  return { ...(target === control ? {} : { message: `ticked ${target.label}` }), readBack: (t) => stillChecked(radio, target, true, t) };
}

/** A one-line reason from a playwright error: what blocked the action, not the whole call log. */
function explain(err: unknown, timeout: number): string {
  const text = errorMessage(err);
  const lines = text.split('\n').map((l) => l.trim());
  const log = lines.filter((l) => l.startsWith('- ')).map((l) => l.slice(2));
  const first = (lines[0] ?? '').replace(/^[\w.]+:\s*/, '');
  const blocker = [...log].reverse().find((l) => /intercepts pointer events/.test(l));
  if (blocker) return `another element is in the way (${blocker.slice(0, 200)})`;
  if (/not enabled|disabled/i.test(text) && /timeout/i.test(first)) return 'the element is disabled';
  if (/not visible/i.test(text) && /timeout/i.test(first)) return 'the element is not visible';
  if (/not editable|readonly/i.test(text) && /timeout/i.test(first)) return 'the element is read-only';
  if (/timeout \d+ms exceeded/i.test(first)) {
    const last = log[log.length - 1];
    return `timed out after ${timeout} ms${last ? ` (${last.slice(0, 200)})` : ''}`;
  }
  return first.slice(0, 300) || 'unknown error';
}
