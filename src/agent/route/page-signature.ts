import type { Control, Observation } from '../../shared/observation';
import type { PageSignature } from '../../shared/route';
import { builtLinearPattern, matchesWhole, type LinearPattern } from '../../shared/linear-pattern';

/** What a case value becomes in a route: the route keeps where a value showed, never the value. */
const VALUE_MARK = '{value}';
/** A radio's label in a page signature: which options a group offers is the identity's business, not the page's. */
const OPTION_MARK = '{option}';

type SignatureControl = PageSignature['controls'][number];

/** Lower-case, digits as `#`, spaces collapsed: what route text is made of, before values are taken out. */
function plain(raw: string): string {
  return raw.normalize('NFC').replace(/\p{N}+/gu, '#').replace(/\s+/g, ' ').trim().toLowerCase().slice(0, 300);
}

/**
 * Turns page text into route text: every case value (whole words, any case) becomes `{value}`,
 * every run of digits `#` (application numbers, draft ids, dates, counts), spaces collapse and
 * letters go lower-case. A route made of it holds no value of the case it was learned from.
 *
 * A value that is also a word of the page ("Owner" as a capacity, and "Owner and correspondence
 * address" as a heading) is taken out for one client and not for another, so route text matches
 * text read now when it equals that text scrubbed with this case's values, or scrubbed of digits
 * only, or when the route's `{value}` marks, standing for any text beside the words of the route
 * text (marks alone stand for nothing), make it so ({@link matches}).
 */
export class Scrubber {
  private readonly patterns: RegExp[];
  private readonly marked = new Map<string, LinearPattern>();

  /**
   * `portalWords`: option labels the portal itself shows (radio labels, a list's options). A case
   * value that is one of them ("Shop", "Tamil Nadu", "Owner") is a choice among the portal's own
   * words, the same for every client, and stays as page text.
   */
  constructor(values: Iterable<string | boolean | null | undefined>, portalWords: ReadonlySet<string> = new Set()) {
    const texts = new Set<string>();
    for (const v of values) {
      if (typeof v !== 'string') continue;
      const t = v.trim();
      if (t.length >= 2 && /[\p{L}]/u.test(t) && !portalWords.has(plain(t))) texts.add(t);
    }
    this.patterns = [...texts]
      .sort((a, b) => b.length - a.length)
      .map((t) => new RegExp(`(?<![\\p{L}\\p{N}])${escape(t)}(?![\\p{L}\\p{N}])`, 'giu'));
  }

  text(raw: string): string {
    let t = raw.normalize('NFC');
    for (const p of this.patterns) t = t.replace(p, VALUE_MARK);
    return plain(t);
  }

  optional(raw: string | undefined): string | undefined {
    return raw === undefined || raw.trim() === '' ? undefined : this.text(raw);
  }

  /** Whether route text (learned from another case, maybe) names this text read now. */
  matches(routeText: string | undefined, raw: string | undefined): boolean {
    const blank = (t: string | undefined) => t === undefined || t.trim() === '';
    if (blank(routeText) || blank(raw)) return blank(routeText) && blank(raw);
    const route = routeText!;
    const scrubbed = this.text(raw!);
    const digitsOnly = plain(raw!);
    if (route === scrubbed || route === digitsOnly) return true;
    // Marks stand for text only beside words of their own: route text of marks alone (a route edited in its store)
    // would name every control of its role and every page, so it names only what this case scrubs to the same.
    if (!route.includes(VALUE_MARK) || !/[\p{L}\p{N}]/u.test(route.split(VALUE_MARK).join(''))) return false;
    let pattern = this.marked.get(route);
    if (!pattern) {
      // RE2's linear-time engine: route text comes from a store a person can edit, and on a
      // backtracking engine a text of many `{value}` marks is a pattern of many lazy wildcards,
      // whose time grows as the text's length to the power of their number. Both texts are
      // `plain` (single spaces, no line breaks), where RE2's `\s` and `.` mean what JavaScript's do.
      pattern = builtLinearPattern(`^${route.split(VALUE_MARK).map((part) => escape(part)).join('.+?')}$`);
      this.marked.set(route, pattern);
    }
    return matchesWhole(pattern, digitsOnly) || matchesWhole(pattern, scrubbed);
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');
}

/** The portal's own option words on this read: radio labels and the options of lists. */
export function optionWords(observation: Observation): string[] {
  const words: string[] = [];
  for (const c of observation.controls) {
    if (c.role === 'radio') words.push(plain(c.name));
    for (const o of c.options ?? []) words.push(plain(o));
  }
  return words.filter((w) => w !== '');
}

/** One control as a page signature lists it. */
function signatureControl(control: Control, scrub: Scrubber): SignatureControl {
  const group = scrub.optional(control.group);
  return { role: control.role, name: control.role === 'radio' ? OPTION_MARK : scrub.text(control.name), ...(group !== undefined ? { group } : {}) };
}

function controlMatches(expected: SignatureControl, control: Control, scrub: Scrubber): boolean {
  if (expected.role !== control.role) return false;
  if (control.role === 'radio' ? expected.name !== OPTION_MARK : !scrub.matches(expected.name, control.name)) return false;
  return scrub.matches(expected.group, control.group);
}

const order = (a: SignatureControl, b: SignatureControl) => `${a.role}|${a.name}|${a.group ?? ''}`.localeCompare(`${b.role}|${b.name}|${b.group ?? ''}`);

/** What identifies this page: flow step, headings and its controls (sorted: a set, not a layout). */
export function pageSignature(observation: Observation, scrub: Scrubber): PageSignature {
  return {
    flowStep: observation.flowStep === null ? null : scrub.text(observation.flowStep),
    headings: observation.headings.slice(0, 40).map((h) => scrub.text(h)),
    controls: observation.controls.map((c) => signatureControl(c, scrub)).sort(order),
  };
}

/** Whether this read is the page a route step was learned on; when not, one line on what differs. */
export function compareSignature(expected: PageSignature, observation: Observation, scrub: Scrubber): { same: true } | { same: false; difference: string } {
  if ((expected.flowStep === null) !== (observation.flowStep === null) || (observation.flowStep !== null && !scrub.matches(expected.flowStep ?? '', observation.flowStep))) {
    return { same: false, difference: `flow step "${observation.flowStep ?? 'none'}", the route has "${expected.flowStep ?? 'none'}"` };
  }
  const headings = observation.headings.slice(0, 40);
  if (headings.length !== expected.headings.length || expected.headings.some((h, i) => !scrub.matches(h, headings[i]))) {
    return { same: false, difference: `headings "${headings.join(' / ')}", the route has "${expected.headings.join(' / ')}"` };
  }
  const unused = [...observation.controls];
  const missing: SignatureControl[] = [];
  for (const want of expected.controls) {
    const at = unused.findIndex((c) => controlMatches(want, c, scrub));
    if (at === -1) missing.push(want);
    else unused.splice(at, 1);
  }
  if (missing.length || unused.length) {
    const parts = [
      missing.length ? `missing ${missing.slice(0, 3).map(shown).join(', ')}` : '',
      unused.length ? `new ${unused.slice(0, 3).map((c) => c.label).join(', ')}` : '',
    ];
    return { same: false, difference: `controls changed: ${parts.filter(Boolean).join('; ')}` };
  }
  return { same: true };
}

function shown(c: SignatureControl): string {
  return `${c.role} "${c.name}"${c.group ? ` in "${c.group}"` : ''}`;
}
