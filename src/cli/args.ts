import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './cli-error';

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs with errors turned into one-line usage errors. */
export function parseCommandArgs<O extends Options>(args: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args, options: { ...options, help: { type: 'boolean' } }, allowPositionals, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${name} must be one of ${allowed.join(', ')} (got "${value}")`);
}

export function positiveInt(name: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`--${name} must be a whole number from 1 to ${max} (got "${value}")`);
  return n;
}
