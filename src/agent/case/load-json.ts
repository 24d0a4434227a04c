import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import type { z } from 'zod';
import { ConfigFileError } from './config-file-error';
import { parseStrictJson, StrictJsonError } from './strict-json';
import { describeZodError } from './zod-message';

/** A case file or profile is a few kilobytes; anything past this is not one. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Reads and validates one JSON file; any problem becomes a one-line ConfigFileError naming the
 * file, the field and what is wrong, never the file's contents.
 */
export function loadJsonFile<T extends z.ZodType>(path: string, schema: T, what: string): z.infer<T> {
  return parseJsonText(readConfigText(path, what), path, schema, what);
}

/** Validates the text of one JSON file (read by the caller from `path`), as loadJsonFile does. */
export function parseJsonText<T extends z.ZodType>(text: string, path: string, schema: T, what: string): z.infer<T> {
  let data: unknown;
  try {
    data = parseStrictJson(text);
  } catch (err) {
    if (err instanceof StrictJsonError) throw new ConfigFileError(path, err.syntax ? `the ${what} is not valid JSON: ${err.message}` : `invalid ${what}: ${err.message}`);
    throw err;
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new ConfigFileError(path, `invalid ${what}: ${describeZodError(parsed.error)}`);
  return parsed.data;
}

/**
 * The text of a regular file of at most MAX_CONFIG_BYTES, checked to be UTF-8, with a leading
 * byte order mark removed. A FIFO, a device or a folder is refused before it is opened for
 * reading, so nothing blocks; the open itself is non-blocking and re-checked on the handle.
 */
export function readConfigText(path: string, what: string): string {
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (err) {
    throw new ConfigFileError(path, cannotRead(err, what));
  }
  refuseUnlessRegular(path, stat, what);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    throw new ConfigFileError(path, cannotRead(err, what));
  }
  try {
    return readConfigFd(fd, path, what);
  } finally {
    closeSync(fd);
  }
}

/** readConfigText on a file the caller opened (`path` names it in messages); the descriptor stays open. */
export function readConfigFd(fd: number, path: string, what: string): string {
  let bytes: Buffer;
  try {
    refuseUnlessRegular(path, fstatSync(fd), what);
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    let length = 0;
    for (let n = 1; n > 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > MAX_CONFIG_BYTES) throw new ConfigFileError(path, tooBig(what));
    bytes = buffer.subarray(0, length);
  } catch (err) {
    if (err instanceof ConfigFileError) throw err;
    throw new ConfigFileError(path, cannotRead(err, what));
  }
  const bad = firstInvalidUtf8(bytes);
  if (bad !== -1) throw new ConfigFileError(path, `the ${what} is not UTF-8 text: the byte at offset ${bad} (${lineOfByte(bytes, bad)}) is not valid UTF-8; save the file as UTF-8`);
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function refuseUnlessRegular(path: string, stat: Stats, what: string): void {
  if (stat.isFile()) {
    if (stat.size > MAX_CONFIG_BYTES) throw new ConfigFileError(path, tooBig(what));
    return;
  }
  throw new ConfigFileError(path, `is ${fileKind(stat)}; a ${what} is a regular JSON file`);
}

/** What a path that is not a regular file is, as a message names it ("a folder", "a named pipe (FIFO)"…). */
function fileKind(stat: Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

function tooBig(what: string): string {
  return `is larger than ${MAX_CONFIG_BYTES / 1024} KiB; a ${what} is a small JSON file (a few KiB)`;
}

function cannotRead(err: unknown, what: string): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `no such ${what}`;
  if (code === 'EACCES' || code === 'EPERM') return `the ${what} cannot be read (permission denied)`;
  if (code === 'ENAMETOOLONG') return `the path is too long for a ${what}`;
  return `cannot read the ${what} (${code ?? 'unknown error'})`;
}

/** The offset of the first byte that is not part of well-formed UTF-8 (RFC 3629), or -1. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [need, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [need, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    if (i + need >= bytes.length) return i;
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k]!;
      if ((c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

function lineOfByte(bytes: Uint8Array, offset: number): string {
  let line = 1;
  for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
  return `line ${line}`;
}
