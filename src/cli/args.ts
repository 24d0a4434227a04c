import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './cli-error';

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs with errors turned into one-line usage errors; a flag given twice (not `multiple`) is refused. */
export function parseCommandArgs<O extends Options>(args: string[], options: O, allowPositionals = false) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...options, help: { type: 'boolean' } }, allowPositionals, strict: true, tokens: true });
  } catch (err) {
    throw new UsageError(parseArgsProblem(err as Error & { code?: string }));
  }
  // parseArgs keeps the last of a flag given twice without a word; a flag that is not `multiple` is given once.
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option' || options[token.name]?.multiple === true) continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once; give it once`);
    seen.add(token.name);
  }
  return parsed;
}

/** parseArgs speaks in up to three lines and quotes the whole argument; one short line here. */
function parseArgsProblem(err: Error & { code?: string }): string {
  const ambiguous = /^Option '(-[-\w]+)(?: <value>)?' argument is ambiguous/.exec(err.message);
  if (ambiguous) {
    const flag = ambiguous[1]!;
    return `${flag} needs a value; a value that starts with a dash is written ${flag}=VALUE (a negative number is never valid here)`;
  }
  const line = err.message.split('\n')[0]!.replace(/[\p{Cc}\p{Cf}]/gu, ' ');
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** A value the user typed, as a message shows it: control characters escaped, at most 40 characters. */
export function shownArg(value: string): string {
  const escaped = value.replace(/[\p{Cc}\p{Cf}]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
  return escaped.length > 40 ? `${escaped.slice(0, 40)}… (${value.length} characters)` : escaped;
}

export function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${name} must be one of ${allowed.join(', ')} (got "${shownArg(value)}")`);
}

/**
 * A whole number written in decimal digits only: "1e2", "0x10", " 5", "+5" and "5.0" are refused
 * rather than read the way Number() would.
 */
export function positiveInt(name: string, value: string | undefined, fallback: number, max: number, min = 1): number {
  if (value === undefined) return fallback;
  const n = /^[0-9]{1,9}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, in digits only (got "${shownArg(value)}")`);
  return n;
}

/** The options every command that runs one supervised case shares (`run`, `portals learn`). */
export const CASE_RUN_OPTIONS = {
  case: { type: 'string' },
  approve: { type: 'string' },
  'lab-url': { type: 'string' },
  db: { type: 'string' },
  'otp-command': { type: 'string' },
  answer: { type: 'string', multiple: true },
  'max-steps': { type: 'string' },
  'time-limit': { type: 'string' },
  headed: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;
