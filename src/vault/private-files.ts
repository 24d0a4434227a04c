import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { link, mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { VaultError } from './vault-error';

/** Owner-only file mode for everything the vault writes. */
const PRIVATE_FILE = 0o600;
const PRIVATE_DIR = 0o700;

export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR });
}

/**
 * Replaces `path` atomically: the bytes go to a 0600 temp file in the same folder, are flushed,
 * and the temp file is renamed over `path`. A reader sees the old file or the new one, never half.
 */
export async function writePrivateFile(path: string, data: string | Uint8Array): Promise<void> {
  const temp = await writeTemp(path, data);
  try {
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  await syncDir(dirname(path));
}

/**
 * Creates `path` only if it does not exist, atomically and complete (temp file, then a hard
 * link, which fails when the name is taken). Answers false when another writer got there first.
 */
export async function createPrivateFile(path: string, data: string | Uint8Array): Promise<boolean> {
  const temp = await writeTemp(path, data);
  try {
    await link(temp, path);
    await syncDir(dirname(path));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/**
 * Opens a file for reading without following a symbolic link at its last component, and without
 * blocking on a FIFO or a device (O_NONBLOCK; the caller checks what it opened); null when it does
 * not exist. Other failures are thrown as they are (the key files name a link in their own words).
 */
export async function openNoFollow(path: string) {
  try {
    return await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** How a file that is not a regular one is refused, in its reader's own words. */
interface RegularFileRefusals {
  /** A symbolic link at the path. */
  link(): Error;
  /** Something else at the path: `kind` is "a FIFO", "a folder" or "a device or socket". */
  notRegular(kind: string): Error;
  /** Any other failure to open it (absent: that failure is thrown as it is). */
  unopenable?(reason: string): Error;
}

/**
 * Opens `path` as the regular file it must be (`openNoFollow`), checks what was opened, and answers
 * its handle and stat, so what is read is the very file that was checked; null when it does not
 * exist. A link, a FIFO, a folder or a device is refused with the reader's `refusals`.
 */
export async function openRegularFile(path: string, refusals: RegularFileRefusals): Promise<{ file: FileHandle; stat: Stats } | null> {
  let file;
  try {
    file = await openNoFollow(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw refusals.link();
    if (refusals.unopenable) throw refusals.unopenable(code ?? (err as Error).message);
    throw err;
  }
  if (!file) return null;
  const stat = await file.stat();
  if (!stat.isFile()) {
    await file.close();
    throw refusals.notRegular(stat.isFIFO() ? 'a FIFO' : stat.isDirectory() ? 'a folder' : 'a device or socket');
  }
  return { file, stat };
}

/**
 * The text of a file the vault wrote (a record, the manifest), read through the one descriptor
 * that was checked; null when it does not exist. A link in its place, or anything but a regular
 * file, is refused as `damaged`, naming it.
 */
export async function readPrivateFile(path: string): Promise<string | null> {
  const opened = await openRegularFile(path, {
    link: () => new VaultError('damaged', `The vault file ${path} is a symbolic link; the vault reads only the files it wrote. Nothing was read.`),
    notRegular: (kind) => new VaultError('damaged', `The vault file ${path} is not a regular file (${kind}); the vault reads only the files it wrote. Nothing was read.`),
  });
  if (!opened) return null;
  try {
    return await opened.file.readFile('utf8');
  } finally {
    await opened.file.close();
  }
}

async function writeTemp(path: string, data: string | Uint8Array): Promise<string> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const file = await open(temp, 'wx', PRIVATE_FILE);
  try {
    await file.chmod(PRIVATE_FILE); // in case a strict umask removed the owner's own bits
    await file.writeFile(data);
    await file.sync();
  } catch (err) {
    await file.close();
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  await file.close();
  return temp;
}

/** Makes a rename or link durable; best effort where folders cannot be opened (Windows). */
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Not supported on this platform: the rename itself is still atomic.
  }
}
