import type { RequestBody, WireBlock, WireMessage } from './server';

/**
 * Reads the pages a planner sent: the `<untrusted_page_content>` blocks in a request, parsed
 * back from the compact rendering of src/agent/decide/anthropic/page-block.ts.
 */

export const OPEN = '<untrusted_page_content>';
export const CLOSE = '</untrusted_page_content>';

export interface PageControl {
  ref: string;
  role: string;
  name: string;
  type?: string;
  value?: string;
  checked?: boolean | 'mixed';
  selected?: string;
  options?: string[];
  required: boolean;
  invalid: boolean;
  disabled: boolean;
  gated: boolean;
  unnamed: boolean;
  nameInferred: boolean;
  group?: string;
  href?: string;
  frame?: string;
}

export interface PageView {
  url: string;
  title: string;
  flowStep?: string;
  headings: string[];
  errors: string[];
  text: string;
  controls: PageControl[];
  /** The block body as sent. */
  raw: string;
}

/** Every text in a message: its text blocks and the text blocks inside its tool_results, in order. */
export function textsOf(message: WireMessage): string[] {
  if (typeof message.content === 'string') return [message.content];
  const out: string[] = [];
  const visit = (block: WireBlock): void => {
    if (block.type === 'text' && typeof block['text'] === 'string') out.push(block['text']);
    if (block.type === 'tool_result') {
      const content = block['content'];
      if (typeof content === 'string') out.push(content);
      else if (Array.isArray(content)) (content as WireBlock[]).forEach(visit);
    }
  };
  message.content.forEach(visit);
  return out;
}

/** Bodies of the untrusted blocks in a text. */
export function untrustedBlocks(text: string): string[] {
  const bodies: string[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf(OPEN, from);
    if (start < 0) return bodies;
    const end = text.indexOf(CLOSE, start + OPEN.length);
    if (end < 0) return bodies;
    bodies.push(text.slice(start + OPEN.length, end).replace(/^\n/, '').replace(/\n$/, ''));
    from = end + CLOSE.length;
  }
}

const STRING = '"(?:[^"\\\\]|\\\\.)*"';
const CONTROL_HEAD = new RegExp(`^(\\S+) (\\S+) (${STRING})(.*)$`);
const TOKEN = new RegExp(`\\s*(?:= (${STRING})|([a-z_]+)=(${STRING}|\\[(?:${STRING}|[^\\]"])*\\]|\\S+)|(\\S+))`, 'y');

/** One control line back into its parts; null when the line is not a control. */
export function parseControlLine(line: string): PageControl | null {
  const head = CONTROL_HEAD.exec(line);
  if (!head) return null;
  const control: PageControl = {
    ref: head[1] as string,
    role: head[2] as string,
    name: JSON.parse(head[3] as string) as string,
    required: false,
    invalid: false,
    disabled: false,
    gated: false,
    unnamed: false,
    nameInferred: false,
  };
  const rest = head[4] ?? '';
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < rest.length) {
    const match = TOKEN.exec(rest);
    if (!match) break;
    const [, value, key, keyValue, flag] = match;
    if (value !== undefined) control.value = JSON.parse(value) as string;
    else if (key !== undefined && keyValue !== undefined) {
      const parsed = keyValue.startsWith('"') || keyValue.startsWith('[') ? (JSON.parse(keyValue) as unknown) : keyValue;
      if (key === 'type') control.type = String(parsed);
      else if (key === 'selected') control.selected = String(parsed);
      else if (key === 'options') control.options = parsed as string[];
      else if (key === 'group') control.group = String(parsed);
      else if (key === 'href') control.href = String(parsed);
      else if (key === 'frame') control.frame = String(parsed);
    } else if (flag !== undefined) {
      if (flag === 'checked') control.checked = true;
      else if (flag === 'unchecked') control.checked = false;
      else if (flag === 'mixed') control.checked = 'mixed';
      else if (flag === 'required') control.required = true;
      else if (flag === 'invalid') control.invalid = true;
      else if (flag === 'disabled') control.disabled = true;
      else if (flag === 'gated') control.gated = true;
      else if (flag === 'unnamed') control.unnamed = true;
      else if (flag === 'name_inferred') control.nameInferred = true;
    }
    if (match[0].length === 0) break;
  }
  return control;
}

/** Roles whose value is typed text. */
export const TEXT_ROLES: ReadonlySet<string> = new Set(['textbox', 'searchbox', 'spinbutton']);

/** What a control line leaves out, put back: no `=` on a text field means empty; `options=same_as:REF` means REF's options. */
function completeControls(controls: PageControl[]): PageControl[] {
  const byRef = new Map(controls.map((c) => [c.ref, c]));
  for (const control of controls) {
    if (control.value === undefined && TEXT_ROLES.has(control.role) && control.type !== 'password') control.value = '';
    const options = control.options as unknown;
    if (typeof options === 'string' && options.startsWith('same_as:')) control.options = byRef.get(options.slice('same_as:'.length))?.options ?? [];
  }
  return controls;
}

/** A full page block body; null for a one-line summary (`[earlier page: …]`). */
export function parsePage(body: string): PageView | null {
  const lines = body.split('\n');
  const controlsAt = lines.lastIndexOf('controls:');
  const textAt = lines.indexOf('text:');
  if (controlsAt < 0 || textAt < 0) return null;
  const field = (prefix: string): string | undefined => lines.find((line) => line.startsWith(prefix))?.slice(prefix.length);
  const errorsAt = lines.indexOf('errors:');
  const errors: string[] = [];
  if (errorsAt >= 0) for (let i = errorsAt + 1; i < textAt && lines[i]?.startsWith('- '); i += 1) errors.push((lines[i] as string).slice(2));
  const headings = field('headings: ');
  const page: PageView = {
    url: field('url: ') ?? '',
    title: field('title: ') ?? '',
    headings: headings ? headings.split(' | ') : [],
    errors,
    text: lines.slice(textAt + 1, controlsAt).join('\n'),
    controls: completeControls(
      lines
        .slice(controlsAt + 1)
        .map(parseControlLine)
        .filter((control): control is PageControl => control !== null),
    ),
    raw: body,
  };
  const flowStep = field('flow step: ');
  if (flowStep !== undefined) page.flowStep = flowStep;
  return page;
}

/** The latest full page a request carries (searching from its last message back). */
export function latestPage(body: RequestBody): PageView | null {
  const messages = body.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i] as WireMessage;
    if (message.role !== 'user') continue;
    const texts = textsOf(message);
    for (let t = texts.length - 1; t >= 0; t -= 1) {
      const blocks = untrustedBlocks(texts[t] as string);
      for (let b = blocks.length - 1; b >= 0; b -= 1) {
        const page = parsePage(blocks[b] as string);
        if (page) return page;
      }
    }
  }
  return null;
}
