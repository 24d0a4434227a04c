import { PortalDeskError } from '../../base/portal-desk-error';

/**
 * JSON for files a person wrote: the grammar of JSON.parse, plus what JSON.parse lets through
 * silently. A key given twice (JSON.parse keeps the last), a key named `__proto__` (an object
 * built from it loses it), a key naming an object's own machinery (`constructor`, `hasOwnProperty`,
 * `toString`…: a lookup of a field by name would find the machinery where no field is) and nesting or key counts no case file needs are refused, each with
 * where it is. Messages name keys (cut) and line:column, never the file's other text.
 * One pass over the text; the depth is capped, so a hostile file cannot exhaust the stack.
 */

export const JSON_LIMITS = { maxDepth: 32, maxKeys: 1000, maxItems: 5000 } as const;

/** Names every plain object answers without holding them (`constructor`, `hasOwnProperty`, `toString`…): refused as keys. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

export class StrictJsonError extends PortalDeskError {
  constructor(
    message: string,
    /** True for text that is not JSON at all; false for JSON that is refused (a duplicate key, `__proto__`, too deep). */
    readonly syntax: boolean,
  ) {
    super(message);
  }
}

// eslint-disable-next-line no-control-regex -- JSON forbids raw control characters inside strings: they end a plain run
const PLAIN_STRING = /[^"\\\u0000-\u001f]*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Parses `text` (a BOM already removed) or throws a StrictJsonError. */
export function parseStrictJson(text: string): unknown {
  return new Parser(text).document();
}

/** A key as a message may show it: control and invisible characters escaped, at most 40 characters. */
export function shownKey(key: string, max = 40): string {
  const escaped = key.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
  return escaped.length > max ? `${escaped.slice(0, max)}… (${key.length} characters)` : escaped;
}

class Parser {
  private at = 0;
  private depth = 0;
  private readonly path: string[] = [];

  constructor(private readonly text: string) {}

  document(): unknown {
    this.space();
    const value = this.value();
    this.space();
    if (this.at < this.text.length) this.fail('more text after the JSON value ends');
    return value;
  }

  private value(): unknown {
    const c = this.text[this.at];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === 't') return this.word('true', true);
    if (c === 'f') return this.word('false', false);
    if (c === 'n') return this.word('null', null);
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    if (c === '\uFEFF') return this.fail('a byte order mark (U+FEFF) here; it may only open the file');
    return this.fail(c === undefined ? 'the file ends where a value should be' : 'expected a value (a string in double quotes, a number, true, false, null, an object or a list)');
  }

  private object(): Record<string, unknown> {
    this.enter();
    this.at++; // {
    const out: Record<string, unknown> = {};
    const seen = new Map<string, number>();
    this.space();
    if (this.text[this.at] === '}') {
      this.at++;
      this.leave();
      return out;
    }
    for (;;) {
      if (this.text[this.at] !== '"') this.fail(this.text[this.at] === '}' ? 'a comma before "}" (JSON allows no trailing comma)' : 'expected a key in double quotes');
      const keyAt = this.at;
      const key = this.string();
      this.path.push(key);
      if (key === '__proto__') this.refuse('a key named "__proto__" is refused: JavaScript would drop it without a word', keyAt);
      if (PROTOTYPE_KEYS.has(key)) this.refuse(`a key named "${key}" is refused: it names a JavaScript object's own machinery, which code could take for a field`, keyAt);
      const first = seen.get(key);
      if (first !== undefined) this.refuse(`this key is given twice (lines ${this.lineOf(first)} and ${this.lineOf(keyAt)}); JSON would keep only the last, so keep one`, keyAt);
      if (seen.size >= JSON_LIMITS.maxKeys) {
        this.path.pop();
        this.refuse(`more than ${JSON_LIMITS.maxKeys} keys in one object`, keyAt);
      }
      seen.set(key, keyAt);
      this.space();
      if (this.text[this.at] !== ':') this.fail('expected ":" after the key');
      this.at++;
      this.space();
      out[key] = this.value();
      this.path.pop();
      this.space();
      const c = this.text[this.at];
      this.at++;
      if (c === '}') break;
      if (c !== ',') {
        this.at--;
        this.fail(c === undefined ? 'the file ends inside an object (a "}" is missing)' : 'expected "," or "}" after a value');
      }
      this.space();
    }
    this.leave();
    return out;
  }

  private array(): unknown[] {
    this.enter();
    this.at++; // [
    const out: unknown[] = [];
    this.space();
    if (this.text[this.at] === ']') {
      this.at++;
      this.leave();
      return out;
    }
    for (;;) {
      if (out.length >= JSON_LIMITS.maxItems) this.refuse(`more than ${JSON_LIMITS.maxItems} items in one list`, this.at);
      this.path.push(String(out.length));
      if (this.text[this.at] === ']') this.fail('a comma before "]" (JSON allows no trailing comma)');
      out.push(this.value());
      this.path.pop();
      this.space();
      const c = this.text[this.at];
      this.at++;
      if (c === ']') break;
      if (c !== ',') {
        this.at--;
        this.fail(c === undefined ? 'the file ends inside a list (a "]" is missing)' : 'expected "," or "]" after a list item');
      }
      this.space();
    }
    this.leave();
    return out;
  }

  private string(): string {
    this.at++; // "
    let out = '';
    for (;;) {
      PLAIN_STRING.lastIndex = this.at;
      PLAIN_STRING.exec(this.text);
      out += this.text.slice(this.at, PLAIN_STRING.lastIndex);
      this.at = PLAIN_STRING.lastIndex;
      const c = this.text[this.at];
      if (c === '"') {
        this.at++;
        return out;
      }
      if (c === undefined) this.fail('the file ends inside a string (a closing " is missing)');
      if (c !== '\\') this.fail(`a raw control character (U+${c!.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}) inside a string; write it escaped, or leave it out`);
      const e = this.text[this.at + 1];
      if (e === 'u') {
        const hex = this.text.slice(this.at + 2, this.at + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('"\\u" must be followed by four hex digits');
        out += String.fromCharCode(parseInt(hex, 16));
        this.at += 6;
      } else if (e !== undefined && e in ESCAPES) {
        out += ESCAPES[e];
        this.at += 2;
      } else {
        this.fail('an unknown escape after "\\" (JSON knows \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)');
      }
    }
  }

  private number(): number {
    NUMBER.lastIndex = this.at;
    const m = NUMBER.exec(this.text);
    if (!m) return this.fail('a malformed number');
    this.at = NUMBER.lastIndex;
    return Number(m[0]);
  }

  private word<T>(word: string, value: T): T {
    if (this.text.startsWith(word, this.at)) {
      this.at += word.length;
      return value;
    }
    return this.fail('expected a value (a string in double quotes, a number, true, false, null, an object or a list)');
  }

  private space(): void {
    WHITESPACE.lastIndex = this.at;
    WHITESPACE.exec(this.text);
    this.at = WHITESPACE.lastIndex;
  }

  private enter(): void {
    if (this.depth >= JSON_LIMITS.maxDepth) this.refuse(`nested deeper than ${JSON_LIMITS.maxDepth} levels`, this.at);
    this.depth++;
  }

  private leave(): void {
    this.depth--;
  }

  private lineOf(offset: number): number {
    let line = 1;
    for (let i = this.text.indexOf('\n'); i !== -1 && i < offset; i = this.text.indexOf('\n', i + 1)) line++;
    return line;
  }

  /** A syntax error at the current position. */
  private fail(problem: string): never {
    const inside = this.path.length > 0 ? ` (inside ${this.where()})` : '';
    throw new StrictJsonError(`${this.position(this.at)}: ${problem}${inside}`, true);
  }

  /** Valid JSON that a case file or profile may not hold. */
  private refuse(problem: string, offset: number): never {
    throw new StrictJsonError(`${this.path.length > 0 ? this.where() : '(top level)'}: ${problem} (${this.position(offset)})`, false);
  }

  /** The field path, at most five keys deep (the middle elided). */
  private where(): string {
    const keys = this.path.map((k) => shownKey(k));
    return (keys.length > 5 ? [...keys.slice(0, 2), '…', ...keys.slice(-2)] : keys).join('.');
  }

  private position(offset: number): string {
    const column = offset - (this.text.lastIndexOf('\n', offset - 1) + 1) + 1;
    return `line ${this.lineOf(offset)}, column ${column}`;
  }
}
