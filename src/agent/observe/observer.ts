import type { Frame, Locator, Page } from 'playwright-core';
import { withTimeout } from '../../base/with-timeout';
import { ordinalOf } from '../../shared/case-groups';
import { DEFAULT_TEXT_BUDGET, MAX_CONTROLS, type Control, type NameSource, type Observation, type PageError } from '../../shared/observation';
import { alignClickables, alignControls } from './align';
import { collapse, CONTROL_ROLES, indexTree, isAriaTree, NAME_FROM_CONTENT, nodeText, optionsOf, radiosOf, type AriaNode, type RefItem } from './aria-tree';
import { readDomFacts, type DomControl, type DomError, type DomFacts } from './dom-facts';
import { trackerFor, type PageTracker } from './page-tracker';
import { findFlowStep, fitText, readPageText } from './page-text';
import type { ObserveOptions, Observer, PageRead } from './page-read';

/**
 * The observer: one read of the live page = playwright's ai aria snapshot (roles, names, states
 * and refs, computed in playwright's isolated world) + one DOM-facts evaluate per frame, run
 * concurrently, paired up by `align.ts`.
 *
 * Refs: every read gets a fresh id `rN`; its controls get `rNcK`. The read keeps a private
 * table from `rNcK` to playwright's aria ref (`e12`, `f1e3` in frames). `resolve` answers null
 * for refs of other reads, for any read once a newer read of the page has started, for frames
 * that navigated since, and for elements that are gone (a re-rendered node gets a new aria ref,
 * so the old one counts 0). The check is one `count()` round trip, a few milliseconds.
 */

const CHECKABLE = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);
const FILLABLE = new Set(['textbox', 'searchbox', 'spinbutton', 'combobox']);
const MAX_NAME = 200;
const MAX_OPTIONS = 60;
const READ_TIMEOUT_MS = 15_000;
const RESOLVE_TIMEOUT_MS = 1_500;

let readSeq = 0;

/** What the read remembers about one of its refs (never shown to the model). */
interface RefEntry {
  ariaRef: string;
  frame: Frame;
  generation: number;
  control: Control;
  /** `name` attribute of a radio input: the radios it is grouped with. */
  radioName?: string;
}

export class LivePageRead implements PageRead {
  constructor(
    readonly observation: Observation,
    private readonly page: Page,
    private readonly tracker: PageTracker,
    private readonly refs: ReadonlyMap<string, RefEntry>,
  ) {}

  get readId(): string {
    return this.observation.readId;
  }

  control(ref: string): Control | undefined {
    return this.refs.get(ref)?.control;
  }

  entry(ref: string): RefEntry | undefined {
    return this.refs.get(ref);
  }

  /** True while no newer read of the page has started. */
  get current(): boolean {
    return this.tracker.latestReadId === this.readId;
  }

  async resolve(ref: string): Promise<Locator | null> {
    const entry = this.refs.get(ref);
    if (!entry || !this.current) return null;
    if (entry.frame.isDetached() || this.tracker.generation(entry.frame) !== entry.generation) return null;
    const locator = this.page.locator(`aria-ref=${entry.ariaRef}`);
    const count = await withTimeout(locator.count(), RESOLVE_TIMEOUT_MS).catch(() => 0);
    // The page may have navigated while we asked.
    if (count !== 1 || !this.current || this.tracker.generation(entry.frame) !== entry.generation) return null;
    return locator;
  }
}

export class PageObserver implements Observer {
  async read(page: Page, options: ObserveOptions = {}): Promise<LivePageRead> {
    const started = performance.now();
    const tracker = trackerFor(page);
    const readId = `r${++readSeq}`;
    tracker.latestReadId = readId;
    // No load-state wait here: page.goto and the executor's settle step already waited for it,
    // and every extra playwright call costs a stack capture and a round trip.

    // A navigation during the read would leave refs that never resolve: read again (twice at most).
    for (let attempt = 0; ; attempt++) {
      const mainFrame = page.mainFrame();
      const generationAtStart = tracker.generation(mainFrame);
      const read = await buildRead(page, tracker, readId, options, started);
      if (attempt >= 2 || tracker.generation(mainFrame) === generationAtStart) return read;
      await page.waitForLoadState('domcontentloaded', { timeout: READ_TIMEOUT_MS }).catch(() => undefined);
    }
  }
}

export function createObserver(): Observer {
  return new PageObserver();
}

interface FrameInfo {
  frame: Frame;
  facts: DomFacts | null;
  generation: number;
  gated: boolean;
  url: string;
}

/** A control before refs are minted. */
interface Candidate {
  order: number;
  ariaRef: string;
  frameKey: string;
  control: Omit<Control, 'ref'>;
  priority: number;
  radioName?: string;
}

async function buildRead(page: Page, tracker: PageTracker, readId: string, options: ObserveOptions, started: number): Promise<LivePageRead> {
  const maxControls = options.maxControls ?? MAX_CONTROLS;
  const textBudget = options.textBudget ?? DEFAULT_TEXT_BUDGET;

  // Generations first: a navigation from here on invalidates what this read sees.
  const frames = page.frames();
  const generations = new Map(frames.map((f) => [f, tracker.generation(f)] as const));
  // DOM walks first, snapshot right behind: the short walks then finish while playwright is still
  // preparing the snapshot. (Measured the other way round, a walk queued behind the long snapshot
  // finished well after it on a loaded machine.)
  const factsOf = new Map<Frame, Promise<DomFacts | null>>(frames.map((f) => [f, readDomFacts(f, READ_TIMEOUT_MS)]));
  const snapshot = await page.ariaSnapshotJSON({ mode: 'ai', timeout: READ_TIMEOUT_MS });
  if (!isAriaTree(snapshot)) throw new Error('The aria snapshot came back in an unexpected shape; playwright-core may have changed.');

  const tree = indexTree(snapshot);
  const text = readPageText(snapshot);
  const mainFrame = page.mainFrame();
  const frameOf = new Map<string, FrameInfo>();
  frameOf.set('', { frame: mainFrame, facts: await factsOf.get(mainFrame)!, generation: generations.get(mainFrame) ?? 0, gated: false, url: mainFrame.url() });

  // Child frames: the frame behind each iframe ref, found by its element (one lookup per iframe).
  const keys = [...tree.parentFrame.keys()];
  const located = await Promise.all(keys.map((iframeRef) => frameBehind(page, iframeRef)));
  const childFacts = await Promise.all(located.map((frame) => (frame ? (factsOf.get(frame) ?? readDomFacts(frame, READ_TIMEOUT_MS)) : null)));
  keys.forEach((key, i) => {
    const frame = located[i];
    if (frame) frameOf.set(key, { frame, facts: childFacts[i] ?? null, generation: generations.get(frame) ?? tracker.generation(frame), gated: false, url: frame.url() });
  });

  // Pair refs with DOM facts, frame by frame; a parent frame comes before the frames inside it.
  const memo = new WeakMap<AriaNode, string>();
  const byFrame = new Map<string, RefItem[]>();
  for (const item of tree.items) {
    const list = byFrame.get(item.frameKey) ?? [];
    list.push(item);
    byFrame.set(item.frameKey, list);
  }
  const candidates: Candidate[] = [];
  const candidateOfDomIndex = new Map<string, Map<number, Candidate>>();
  const iframeGate = new Map<string, boolean>();
  for (const [frameKey, items] of byFrame) {
    const info = frameOf.get(frameKey);
    if (!info) continue; // a frame we could not reach: its controls cannot be acted on
    if (frameKey) {
      const parent = frameOf.get(tree.parentFrame.get(frameKey) ?? '');
      // Inside a gated region of the parent, or behind an iframe we could not pair: gated.
      info.gated = (parent?.gated ?? true) || (iframeGate.get(frameKey) ?? true);
    }
    const controlItems = items.filter((it) => CONTROL_ROLES.has(it.node.role) || it.node.role === 'iframe');
    const domControls = info.facts?.controls ?? [];
    const pairs = alignControls(controlItems, domControls);
    const indexMap = new Map<number, Candidate>();
    candidateOfDomIndex.set(frameKey, indexMap);
    controlItems.forEach((item, i) => {
      const dom = pairs[i]! >= 0 ? domControls[pairs[i]!] : undefined;
      if (item.node.role === 'iframe') {
        iframeGate.set(item.ref, dom ? dom.gated === true : info.facts?.anyGated !== false);
        return;
      }
      const candidate = controlCandidate(item, dom, info, memo);
      candidates.push(candidate);
      if (dom) indexMap.set(pairs[i]!, candidate);
    });

    candidates.push(...clickableCandidates(items, info, frameKey, memo));
  }

  // Radios: a group is required when any of its radios is.
  const requiredRadioNames = new Set<string>();
  for (const c of candidates) if (c.control.role === 'radio' && c.control.required && c.radioName) requiredRadioNames.add(`${c.frameKey}\u0000${c.radioName}`);
  for (const c of candidates) if (c.control.role === 'radio' && c.radioName && requiredRadioNames.has(`${c.frameKey}\u0000${c.radioName}`)) c.control.required = true;

  // The cap: form controls first, then content links, then navigation; output in page order.
  candidates.sort((a, b) => a.order - b.order);
  const kept = new Set([...candidates].sort((a, b) => a.priority - b.priority || a.order - b.order).slice(0, maxControls));
  const controls: Control[] = [];
  const refs = new Map<string, RefEntry>();
  for (const c of candidates) {
    if (!kept.has(c)) continue;
    const ref = `${readId}c${controls.length + 1}`;
    const control: Control = { ref, ...c.control };
    controls.push(control);
    const info = frameOf.get(c.frameKey)!;
    refs.set(ref, { ariaRef: c.ariaRef, frame: info.frame, generation: info.generation, control, ...(c.radioName ? { radioName: c.radioName } : {}) });
  }

  const mainFacts = frameOf.get('')!.facts;
  const fitted = fitText(text.lines, textBudget);
  const observation: Observation = {
    readId,
    url: page.url(),
    title: mainFacts?.title ?? (await page.title().catch(() => '')),
    flowStep: findFlowStep(text.lines, mainFacts?.step),
    headings: text.headings.slice(0, 30).map((h) => clip(h)),
    text: fitted.text,
    textTruncated: fitted.truncated,
    errors: pageErrors(frameOf, candidateOfDomIndex),
    controls,
    omittedControls: candidates.length - controls.length,
    unnamedControls: controls.filter((c) => c.nameSource === 'none').length,
    frameHosts: frameHosts(page),
    hasPasswordField: [...frameOf.values()].some((f) => (f.facts?.passwordFields ?? 0) > 0) || controls.some((c) => c.inputType === 'password'),
    readMs: Math.round(performance.now() - started),
  };
  return new LivePageRead(observation, page, tracker, refs);
}

/**
 * Clickable elements that are not controls: those the DOM walk found (inline handler, tab stop),
 * paired with snapshot nodes by text, and those playwright marks cursor=pointer that hold no
 * control and do not merely repeat a control's name (a label styled as clickable).
 */
function clickableCandidates(items: readonly RefItem[], info: FrameInfo, frameKey: string, memo: WeakMap<AriaNode, string>): Candidate[] {
  const controlItems = items.filter((it) => CONTROL_ROLES.has(it.node.role));
  const controlOrders = controlItems.map((it) => it.order);
  const holdsControl = (item: RefItem): boolean => {
    // controlOrders is sorted: find the first order after the item and see whether it is inside.
    let lo = 0;
    let hi = controlOrders.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (controlOrders[mid]! <= item.order) lo = mid + 1;
      else hi = mid;
    }
    return lo < controlOrders.length && controlOrders[lo]! <= item.lastOrder;
  };
  const others = items.filter((it) => !CONTROL_ROLES.has(it.node.role) && it.node.role !== 'iframe');
  const out: Candidate[] = [];
  const claimed: RefItem[] = [];
  const add = (item: RefItem, name: string, nameSource: NameSource, gated: boolean): void => {
    claimed.push(item);
    out.push({
      order: item.order,
      ariaRef: item.ref,
      frameKey,
      priority: priorityOf(item, 'clickable'),
      control: {
        role: 'clickable',
        name,
        nameSource,
        disabled: false,
        required: false,
        invalid: false,
        gated,
        ...(item.group ? { group: item.group } : {}),
        ...(frameKey ? { frameUrl: info.url } : {}),
        label: labelFor('clickable', name, item.group),
      },
    });
  };
  const ownName = (item: RefItem): string => (item.node.role !== 'generic' ? collapse(item.node.name ?? '') : '');

  const clickables = info.facts?.clickables ?? [];
  if (clickables.length) {
    const texts = others.map((item) => ({ item, text: nodeText(item.node, memo) }));
    alignClickables(clickables, texts).forEach((k, i) => {
      if (k < 0) return;
      const { item, text } = texts[k]!;
      const own = ownName(item);
      const name = clip(own || clickables[i]!.text || text);
      add(item, name, own ? 'accessible' : name ? 'inferred' : 'none', clickables[i]!.gated === true || info.gated);
    });
  }

  const controlNames = new Set(controlItems.map((it) => collapse(it.node.name ?? '').toLowerCase()).filter(Boolean));
  const overlapsClaimed = (item: RefItem): boolean => claimed.some((c) => (c.order >= item.order && c.order <= item.lastOrder) || (item.order >= c.order && item.order <= c.lastOrder));
  for (const item of others) {
    if (item.node.cursor !== 'pointer' || holdsControl(item) || overlapsClaimed(item)) continue;
    const text = nodeText(item.node, memo);
    if (!text || text.length > 80 || controlNames.has(text.toLowerCase())) continue;
    const own = ownName(item);
    // No DOM record for these: a frame with a human gate anywhere gates them.
    add(item, clip(own || text), own ? 'accessible' : 'inferred', info.gated || info.facts?.anyGated !== false);
  }
  return out;
}

function controlCandidate(item: RefItem, dom: DomControl | undefined, info: FrameInfo, memo: WeakMap<AriaNode, string>): Candidate {
  const node = item.node;
  const role = node.role;
  const { name, nameSource } = nameOf(node, dom, memo);
  const control: Omit<Control, 'ref'> = {
    role,
    name,
    nameSource,
    disabled: node.disabled === true,
    required: dom?.required === true,
    invalid: (node.invalid !== undefined && node.invalid !== false) || dom?.invalid === true,
    // Without DOM facts we cannot tell; a frame that has a human gate anywhere gates the unknown.
    gated: info.gated || (dom ? dom.gated === true : info.facts?.anyGated !== false),
    label: '',
  };
  if (dom?.type) control.inputType = dom.type;
  const expects = expectsOf(dom, name);
  if (expects) control.expects = expects;
  if (CHECKABLE.has(role)) control.checked = node.checked === true || node.checked === 'mixed' ? node.checked : false;
  // Values only from the DOM walk, which never reads a password; the snapshot's text would include it.
  if (dom && dom.type !== 'password' && dom.value !== undefined && (FILLABLE.has(role) || role === 'slider')) control.value = clip(dom.value, 500);
  if (dom?.options) {
    control.options = capOptions(dom.options);
    control.selected = (dom.selected ?? []).join(', ');
  } else if (role === 'combobox' || role === 'listbox') {
    const { options, selected } = optionsOf(node);
    if (options.length) control.options = capOptions(options);
    if (selected.length) control.selected = selected.join(', ');
  } else if (role === 'radiogroup') {
    const { options, selected } = radiosOf(node);
    control.options = capOptions(options);
    if (selected.length) control.selected = selected.join(', ');
  }
  if (item.group && item.group !== name) control.group = item.group;
  const section = sectionOf(dom);
  if (section) control.section = section;
  // URLs are resolved here, not in the page; a link's raw href comes from the snapshot (playwright's world) first.
  const base = info.facts?.baseUrl || info.url;
  if (role === 'link') {
    const href = absolute(node.url ?? dom?.href, base);
    if (href) control.href = href;
  } else if (dom?.action !== undefined) {
    const action = dom.action ? absolute(dom.action, base) : absolute(info.facts?.url ?? info.url, info.url);
    if (action) control.href = action;
  }
  if (item.frameKey) control.frameUrl = info.url;
  control.label = labelFor(role, name, control.group, control.section);
  return { order: item.order, ariaRef: item.ref, frameKey: item.frameKey, control, priority: priorityOf(item, role), ...(dom?.radioName ? { radioName: dom.radioName } : {}) };
}

/** What the page says a box expects: its placeholder (when it is not already the box's name), hint, pattern, maximum length. */
function expectsOf(dom: DomControl | undefined, name: string): string | undefined {
  if (!dom) return undefined;
  const parts: string[] = [];
  if (dom.placeholder && collapse(dom.placeholder) !== name) parts.push(`placeholder ${JSON.stringify(collapse(dom.placeholder))}`);
  if (dom.hint && collapse(dom.hint) !== name) parts.push(`hint ${JSON.stringify(collapse(dom.hint))}`);
  if (dom.pattern) parts.push(`pattern ${JSON.stringify(dom.pattern)}`);
  if (dom.maxLength !== undefined) parts.push(`maxlength ${dom.maxLength}`);
  return parts.length ? clip(parts.join('; '), 240) : undefined;
}

/** The accessible name, else a name from visual context (row text, column header, placeholder, icon). */
function nameOf(node: AriaNode, dom: DomControl | undefined, memo: WeakMap<AriaNode, string>): { name: string; nameSource: NameSource } {
  // An aria-label that replaced the control's own visible <label> with other words: the label is what the clerk reads.
  if (dom?.ownLabel) return { name: clip(dom.ownLabel), nameSource: 'accessible' };
  let name = collapse(node.name ?? '');
  // ai mode omits names that repeat printed content (a link around a heading): take the content.
  if (!name && NAME_FROM_CONTENT.has(node.role)) name = nodeText(node, memo);
  // A placeholder is a weak name; a label-like text beside the field is what the clerk reads.
  const placeholderOnly = !!dom && !dom.labelled && !dom.title && !!name && name === dom.placeholder;
  if (name && !(placeholderOnly && dom?.inferred)) return { name: clip(name), nameSource: 'accessible' };
  const inferred = dom?.inferred || dom?.placeholder || dom?.title;
  if (inferred) return { name: clip(inferred), nameSource: 'inferred' };
  return { name: '', nameSource: 'none' };
}

function priorityOf(item: RefItem, role: string): number {
  if (item.region === 'nav' || item.region === 'banner' || item.region === 'contentinfo') return role === 'link' ? 3 : 2;
  return role === 'link' ? 1 : 0;
}

function labelFor(role: string, name: string, group: string | undefined, section?: Control['section']): string {
  const base = `${role} ${name ? JSON.stringify(name) : '(no name)'}`;
  const inGroup = group ? `${base} in ${JSON.stringify(group)}` : base;
  if (!section || section.name === group) return inGroup;
  return `${inGroup} of ${section.name ? JSON.stringify(section.name) : `block ${section.ordinal}`}`;
}

/**
 * The person's block a control belongs to: the closest block whose label gives an ordinal
 * ("Partner 2", "Second applicant"), else the closest block that is one of several equal ones (its
 * position), else the heading before it when that gives an ordinal. Undefined when nothing does.
 */
function sectionOf(dom: DomControl | undefined): Control['section'] | undefined {
  const sections = dom?.sections ?? [];
  for (const s of sections) {
    const ordinal = ordinalOf(s.label);
    if (ordinal) return { name: clip(s.label, 120), ordinal };
  }
  const repeated = sections.find((s) => s.position);
  return repeated ? { name: clip(repeated.label, 120), ordinal: repeated.position! } : undefined;
}

function clip(text: string, max = MAX_NAME): string {
  const t = collapse(text);
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function capOptions(options: string[]): string[] {
  return options.length <= MAX_OPTIONS ? options : [...options.slice(0, MAX_OPTIONS), `…(+${options.length - MAX_OPTIONS} more)`];
}

function absolute(url: string | undefined, base: string): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url, base).href;
  } catch {
    return undefined;
  }
}

async function frameBehind(page: Page, iframeRef: string): Promise<Frame | null> {
  try {
    const handle = await withTimeout(page.locator(`aria-ref=${iframeRef}`).elementHandle({ timeout: 2_000 }), 3_000);
    const frame = await handle.contentFrame();
    void handle.dispose().catch(() => undefined);
    return frame;
  } catch {
    return null;
  }
}

function frameHosts(page: Page): string[] {
  const hosts = new Set<string>();
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) continue;
    try {
      const host = new URL(frame.url()).hostname;
      if (host) hosts.add(host);
    } catch {
      // about:blank and the like have no host
    }
  }
  return [...hosts];
}

/** Field errors (aria-invalid with their text) and summary / alert lines that do not repeat them. */
function pageErrors(frames: ReadonlyMap<string, FrameInfo>, candidateOfDomIndex: ReadonlyMap<string, ReadonlyMap<number, Candidate>>): PageError[] {
  const fieldOf = (frameKey: string, e: DomError): string | undefined => {
    const candidate = e.control >= 0 ? candidateOfDomIndex.get(frameKey)?.get(e.control) : undefined;
    const control = candidate?.control;
    // A radio's or checkbox's error is about the question (its group), not the option.
    if (control && (control.role === 'radio' || control.role === 'checkbox') && (control.group ?? e.group)) return control.group ?? e.group;
    return control?.name || e.label || e.group || undefined;
  };
  const seen = new Set<string>();
  const make = (message: string, field: string | undefined): PageError | undefined => {
    const text = clip(message, 300);
    const key = `${text.toLowerCase()}\u0000${field ?? ''}`;
    if (!text || seen.has(key)) return undefined;
    seen.add(key);
    return field ? { message: text, field: clip(field) } : { message: text };
  };
  const fieldErrors: PageError[] = [];
  for (const [frameKey, info] of frames) {
    for (const e of info.facts?.invalid ?? []) {
      const error = make(e.message || 'This field is marked invalid', fieldOf(frameKey, e));
      if (error) fieldErrors.push(error);
    }
  }
  const fieldMessages = new Set(fieldErrors.map((e) => e.message.toLowerCase()));
  const summary: PageError[] = [];
  for (const [frameKey, info] of frames) {
    for (const e of info.facts?.alerts ?? []) {
      if (fieldMessages.has(clip(e.message, 300).toLowerCase())) continue;
      const error = make(e.message, e.control >= 0 || e.label ? fieldOf(frameKey, e) : undefined);
      if (error) summary.push(error);
    }
  }
  return [...summary, ...fieldErrors];
}
