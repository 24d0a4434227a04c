import type { Locator, Page } from 'playwright-core';
import type { Control } from '../../shared/observation';
import { BOX_CHANGED_TEXT, PAGE_CHANGED_TEXT } from '../../shared/outcome';
import { caseDate, type ValueFormat } from '../../shared/value-format';
import { PortalDeskError } from '../../base/portal-desk-error';
import { bringIntoView } from './into-view';
import { bare, heldBy, holdsText, quoted, showsChoice, showsDate, words, type ReadBack } from './read-back';

/**
 * Widgets a plain `fill` or `selectOption` does not drive, driven by code: a read-only date box
 * with a calendar, an autocomplete or combobox that only takes a choice from its list, and the
 * read-back after each (the control must show what was chosen, or the action is reported as not
 * taken instead of moving on; see read-back.ts). Each driver returns its read-back, which the
 * executor runs again once the page has settled. Values always come from the case, through the guard.
 */

/** Ends a widget action with an outcome (the executor turns it into the action's outcome). */
export class WidgetRefusal extends PortalDeskError {
  constructor(
    readonly status: 'error' | 'blocked',
    message: string,
  ) {
    super(message);
  }
}

/** What a widget driver did: a note for the step, and the read-back the executor runs once the page has settled. */
export interface Acted {
  message?: string;
  readBack: ReadBack;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
/** How long a list or calendar may take to appear after typing or a click. */
const APPEAR_MS = 1_500;
/** Months a calendar is paged at most (20 years either way). */
const MAX_PAGES = 240;

/** What a box shows: an input's value, or an editable element's text. */
async function shownValue(locator: Locator, timeout: number): Promise<string> {
  return locator.evaluate((el) => (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement ? el.value : (el.textContent ?? '')), undefined, { timeout });
}

/** A character a key press would turn into a control key (Enter, Tab, Backspace...): never typed key by key. */
function hasControlCharacter(text: string): boolean {
  return [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
}

/**
 * What a box shows after typing, then once it is left (its blur and change handlers run now), in
 * one page call; the focus goes back to it, so a key pressed next still goes to it (Enter in a
 * search box). `refused`: the box's own constraints (its pattern, type or length) refuse the
 * non-empty text it holds. A call that failed (leaving the box took its frame away, say) reads
 * what it shows alone, and a leaving that could not be read is not judged.
 */
async function readBox(locator: Locator, timeout: number): Promise<{ typed: string; left: string | null; refused: boolean }> {
  return locator
    .evaluate(
      // No named inner functions here: tsx would wrap them in a helper the page does not have.
      (el) => {
        const before = el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement ? el.value : (el.textContent ?? '');
        const refused = (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) && el.value !== '' && el.willValidate && !el.validity.valid && !el.validity.valueMissing;
        const box = el as HTMLElement;
        box.blur();
        const after = el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement ? el.value : (el.textContent ?? '');
        if (box.isConnected) box.focus({ preventScroll: true });
        return { typed: before, left: after as string | null, refused };
      },
      undefined,
      { timeout },
    )
    .catch(async () => ({ typed: await shownValue(locator, timeout), left: null, refused: false }));
}

/**
 * Types into an editable box and reads it back: the box must hold the text (its letters and
 * digits; a mask may add spaces, dashes, a prefix or grouping; a date may be rewritten). Then it
 * leaves the box, as a clerk tabbing on would, so the page's change and blur handlers run now and
 * not at the next action, reads it again and puts the focus back. A box that cut the text short (a maxlength),
 * changed it, or dropped it when it was left is reported, not passed over as if it were right.
 */
export async function typeAndReadBack(locator: Locator, control: Control, text: string, format: ValueFormat | undefined, timeout: number): Promise<ReadBack> {
  const date = dateOfFill(text, format);
  await locator.fill(text, { timeout });
  // One page call (readBox), not a read and then the leaving: each Playwright call costs a round
  // trip and a stack capture, on every fill of every run.
  let read = await readBox(locator, timeout);
  if ((!holdsText(read.typed, text, date) || read.refused) && !hasControlCharacter(text)) {
    // The box would not hold the text as set, or its own pattern refuses it: an input mask that
    // writes as keys are pressed (USWDS's, jQuery's) cuts or leaves a set value unformatted. Typed
    // key by key, as a clerk types it, the mask formats it. Each key is pressed on this box (a page
    // that moves the focus on cannot take the rest into another box), never a control key (Enter
    // or Tab stays the guard's to judge). Kept only if the box then holds the same letters and
    // digits (a mask adds separators, never words: an autocomplete's longer choice is not the
    // value) and its pattern takes it; else the text is set as before.
    await locator.fill('', { timeout });
    for (const key of text) await locator.pressSequentially(key, { timeout });
    const keyed = await readBox(locator, timeout);
    if (bare(keyed.typed) === bare(text) && (!keyed.refused || !holdsText(read.typed, text, date))) {
      read = keyed;
    } else {
      await locator.fill(text, { timeout });
      read = await readBox(locator, timeout);
    }
  }
  const { typed, left } = read;
  if (!holdsText(typed, text, date)) {
    throw new WidgetRefusal('error', `${control.label} shows ${quoted(typed)} after typing ${quoted(text)} (${BOX_CHANGED_TEXT}); check what the page expects`);
  }
  if (left !== null && !holdsText(left, text, date)) {
    throw new WidgetRefusal('error', `${control.label} shows ${quoted(left)} once the box was left, after typing ${quoted(text)} (${PAGE_CHANGED_TEXT}); check what the page expects`);
  }
  return async (t) => {
    const now = await heldBy(locator, t);
    return now && !holdsText(now.value, text, date) ? `${control.label} shows ${quoted(now.value)} once the page settled, after typing ${quoted(text)} (${PAGE_CHANGED_TEXT})` : null;
  };
}

/** The date a fill means, from the case text and the format it was written in. */
export function dateOfFill(text: string, format: ValueFormat | undefined): { year: number; month: number; day: number } | undefined {
  const iso = caseDate(text);
  if (!('problem' in iso)) return iso;
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text.trim());
  if (m && (format === 'date:DD/MM/YYYY' || format === 'date:MM/DD/YYYY')) {
    const [a, b, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const [day, month] = format === 'date:DD/MM/YYYY' ? [a, b] : [b, a];
    return { year, month, day };
  }
  const long = /^(\d{1,2}) ([A-Za-z]+) (\d{4})$/.exec(text.trim());
  if (long && MONTHS.includes(long[2]!.toLowerCase())) return { day: Number(long[1]), month: MONTHS.indexOf(long[2]!.toLowerCase()) + 1, year: Number(long[3]) };
  return undefined;
}

/**
 * A read-only date box with a calendar: opens it, pages (or picks from its month and year lists)
 * to the month, clicks the day, and reads the box back: it must then hold that date in some
 * writing (the day and the year at least, and the month as a number or a name).
 */
export async function pickDate(page: Page, locator: Locator, control: Control, date: { year: number; month: number; day: number }, timeout: number): Promise<Acted> {
  await bringIntoView(locator, timeout);
  await locator.click({ timeout });
  const calendar = page.locator('[role=dialog]:visible, [role=grid]:visible, .calendar:visible, .datepicker:visible').first();
  const opened = await calendar.waitFor({ state: 'visible', timeout: APPEAR_MS }).then(
    () => true,
    () => false,
  );
  if (!opened) throw new WidgetRefusal('error', `${control.label} is read-only and no calendar opened when it was clicked`);
  const scope = (await calendar.locator('xpath=ancestor-or-self::*[@role="dialog"]').count()) > 0 ? calendar.locator('xpath=ancestor-or-self::*[@role="dialog"][1]') : calendar;

  // Month and year lists, where the calendar has them.
  const selects = scope.locator('select');
  for (let i = 0; i < (await selects.count()); i++) {
    const select = selects.nth(i);
    const labels = await select.locator('option').allTextContents();
    const year = labels.findIndex((l) => l.trim() === String(date.year));
    const month = labels.findIndex((l) => l.trim().toLowerCase().startsWith(MONTHS[date.month - 1]!.slice(0, 3)));
    if (year >= 0) await select.selectOption({ index: year }, { timeout });
    else if (month >= 0) await select.selectOption({ index: month }, { timeout });
  }

  const wanted = date.year * 12 + (date.month - 1);
  for (let pages = 0; ; pages++) {
    // The calendar's own words, without the labels of its month and year lists.
    const heading = (
      await scope.evaluate((el) => {
        const copy = el.cloneNode(true) as Element;
        copy.querySelectorAll('select, option, script, style').forEach((n) => n.remove());
        const words: string[] = [];
        const walker = document.createTreeWalker(copy, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) words.push(n.textContent ?? '');
        return words.join(' ').replace(/\s+/g, ' ');
      }, undefined, { timeout })
    ).toLowerCase();
    const shown = new RegExp(`\\b(${MONTHS.join('|')}|${MONTHS.map((m) => m.slice(0, 3)).join('|')})\\w*\\s+(\\d{4})\\b`).exec(heading);
    if (!shown) throw new WidgetRefusal('error', `the calendar of ${control.label} shows no month and year`);
    const at = Number(shown[2]) * 12 + MONTHS.findIndex((m) => m.startsWith(shown[1]!.slice(0, 3)));
    if (at === wanted) break;
    if (pages >= MAX_PAGES) throw new WidgetRefusal('error', `the calendar of ${control.label} did not reach ${MONTHS[date.month - 1]} ${date.year}`);
    const name = at < wanted ? /next|›|»|→|>/i : /prev|‹|«|←|</i;
    const button = scope.getByRole('button', { name }).first();
    if ((await button.count()) === 0) throw new WidgetRefusal('error', `the calendar of ${control.label} has no ${at < wanted ? 'next' : 'previous'} month button`);
    await button.click({ timeout });
  }

  const monthName = MONTHS[date.month - 1]!;
  const full = scope.getByRole('button', { name: new RegExp(`^\\s*${date.day}\\s+${monthName}\\s+${date.year}\\s*$`, 'i') });
  const plain = scope.locator('button:not([disabled]):not([aria-disabled=true]), [role=gridcell]:not([aria-disabled=true])').filter({ hasText: new RegExp(`^\\s*${date.day}\\s*$`) });
  const day = (await full.count()) > 0 ? full.first() : plain.first();
  if ((await day.count()) === 0) throw new WidgetRefusal('error', `the calendar of ${control.label} has no day ${date.day} in ${monthName} ${date.year}`);
  await day.click({ timeout });

  const value = await shownValue(locator, timeout);
  if (!showsDate(value, date)) {
    throw new WidgetRefusal('error', `${control.label} shows ${quoted(value, 40)} after picking ${date.day} ${monthName} ${date.year} in its calendar`);
  }
  return {
    message: `picked ${date.day} ${monthName} ${date.year} in the calendar (the box shows ${quoted(value, 40)})`,
    readBack: async (t) => {
      const now = await heldBy(locator, t);
      return now && !showsDate(now.value, date) ? `${control.label} shows ${quoted(now.value, 40)} once the page settled, after picking ${date.day} ${monthName} ${date.year} in its calendar` : null;
    },
  };
}

function exactName(value: string): RegExp {
  const escaped = value.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');
  return new RegExp(`^\\s*${escaped}\\s*$`, 'i');
}

/**
 * An autocomplete (a text box that offers suggestions): types the case value, waits for the list,
 * clicks the suggestion equal to the value and reads the box back. A value the list does not offer
 * is refused and the typed text taken out again, so nothing off the list stays in the box.
 */
export async function chooseSuggestion(page: Page, locator: Locator, control: Control, value: string, timeout: number): Promise<Acted> {
  await locator.fill(value, { timeout });
  const option = page.getByRole('option', { name: exactName(value) }).filter({ visible: true }).first();
  const appeared = await option.waitFor({ state: 'visible', timeout: APPEAR_MS }).then(
    () => true,
    () => false,
  );
  if (!appeared) {
    const offered = (await page.getByRole('option').filter({ visible: true }).allInnerTexts().catch(() => [] as string[])).slice(0, 12);
    await locator.fill('', { timeout }).catch(() => undefined);
    await locator.press('Escape', { timeout }).catch(() => undefined);
    throw new WidgetRefusal('error', `${control.label} does not offer "${value}"${offered.length ? ` (it offers ${offered.map((o) => o.trim()).join(', ')})` : ''}; the typed text was taken out again`);
  }
  await bringIntoView(option, timeout);
  await option.click({ timeout });
  const shown = await shownValue(locator, timeout);
  if (bare(shown) !== bare(value)) throw new WidgetRefusal('error', `${control.label} shows ${quoted(shown)} after choosing "${value}" from its list`);
  return {
    readBack: async (t) => {
      const now = await heldBy(locator, t);
      return now && bare(now.value) !== bare(value) ? `${control.label} shows ${quoted(now.value)} once the page settled, after choosing "${value}" from its list` : null;
    },
  };
}

/**
 * Whether a drawn drop-down shows the choice: the native select it stands for holds it, where it
 * has one (its drawn text alone is not enough: that is what a broken widget still shows), else its
 * own text or value, or the option its aria-activedescendant names, shows it as whole words.
 */
function listShows(held: { value: string; native: string | null; active: string | null }, value: string): boolean {
  if (held.native !== null) return words(held.native) === words(value);
  return showsChoice(held.value, value) || (held.active !== null && showsChoice(held.active, value));
}

/**
 * A drop-down drawn by the page (a select2- or chosen-style box, an ARIA combobox or listbox):
 * opens it, types into its search box where it has one, clicks the option equal to the value,
 * and reads the control back (the native select it stands for, or its text, must hold the value;
 * in a listbox whose options say whether they are selected, the option must say so).
 */
export async function chooseFromList(page: Page, locator: Locator, control: Control, value: string, timeout: number): Promise<Acted> {
  const name = exactName(value);
  const scopeIsList = control.role === 'listbox';
  if (!scopeIsList) {
    await bringIntoView(locator, timeout);
    await locator.click({ timeout });
    const search = page.locator('input[type=search]:visible, [role=searchbox]:visible, .select2-search__field:visible, .chosen-search input:visible').first();
    if ((await search.count()) > 0) await search.fill(value, { timeout }).catch(() => undefined);
  }
  const scope = scopeIsList ? locator : page;
  const option = scope.getByRole('option', { name }).filter({ visible: true }).first();
  const found = await option.waitFor({ state: 'visible', timeout: APPEAR_MS }).then(
    () => true,
    () => false,
  );
  if (!found) {
    await page.keyboard.press('Escape').catch(() => undefined);
    throw new WidgetRefusal('error', `${control.label} shows no option "${value}"${control.options?.length ? `; options: ${control.options.join(', ')}` : ''}`);
  }
  await bringIntoView(option, timeout);
  if (scopeIsList) {
    // Which options of the list say whether they are selected: only then can the choice be read back.
    const marked = (await locator.locator('[role=option][aria-selected]').count().catch(() => 0)) > 0;
    await option.click({ timeout });
    const chosen = async (t: number): Promise<boolean | null> => {
      const held = await heldBy(option, t);
      return held === null || !marked ? null : held.selected === 'true';
    };
    if ((await chosen(timeout)) === false) throw new WidgetRefusal('error', `${control.label}: option "${value}" is not selected after it was clicked`);
    return { readBack: async (t) => ((await chosen(t)) === false ? `${control.label}: option "${value}" is no longer selected once the page settled` : null) };
  }
  await option.click({ timeout });
  const shown = await heldBy(locator, timeout);
  if (shown && !listShows(shown, value)) {
    throw new WidgetRefusal('error', `${control.label} shows ${quoted(shown.native ?? shown.value)} after choosing "${value}"${shown.native !== null && showsChoice(shown.value, value) ? ' (its box shows the choice, but the list it stands for does not hold it)' : ''}`);
  }
  return {
    readBack: async (t) => {
      const now = await heldBy(locator, t);
      return now && !listShows(now, value) ? `${control.label} shows ${quoted(now.native ?? now.value)} once the page settled, after choosing "${value}"` : null;
    },
  };
}
