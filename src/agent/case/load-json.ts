import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { ConfigFileError } from './config-file-error';
import { describeZodError } from './zod-message';

/** Reads and validates one JSON file; any problem becomes a one-line ConfigFileError naming the field. */
export function loadJsonFile<T extends z.ZodType>(path: string, schema: T, what: string): z.infer<T> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigFileError(path, code === 'ENOENT' ? `no such ${what}` : `cannot read the ${what} (${code ?? String(err)})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ConfigFileError(path, `the ${what} is not valid JSON (${(err as Error).message})`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new ConfigFileError(path, `invalid ${what}: ${describeZodError(parsed.error)}`);
  return parsed.data;
}
