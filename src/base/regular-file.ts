import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { PortalDeskError } from './portal-desk-error';

/**
 * Files a person names on the command line (a head log, an export, a report) are opened as the
 * regular files they must be, and checked after opening, not before: the last component is never
 * followed as a link (O_NOFOLLOW), a FIFO or a device never blocks the open (O_NONBLOCK), and what
 * was opened is then fstat'd, so a path swapped for something else between a check and the open
 * cannot be read or written instead.
 */
export class NotRegularFileError extends PortalDeskError {}

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_EXCL, O_TRUNC, O_NOFOLLOW, O_NONBLOCK } = constants;

const FLAGS = {
  read: O_RDONLY,
  /** Appends to the file, which must exist. */
  append: O_WRONLY | O_APPEND,
  /** Creates the file, which must not exist. */
  create: O_WRONLY | O_CREAT | O_EXCL,
  /** Creates the file or empties the regular file that is there. */
  replace: O_WRONLY | O_CREAT | O_TRUNC,
} as const;

type OpenMode = keyof typeof FLAGS;

/** Opens `path` (mode 0600 when created) as a regular file and answers its descriptor; anything else throws NotRegularFileError, a missing file or folder the usual ENOENT. */
export function openRegularFile(path: string, mode: OpenMode, what: string): number {
  let fd: number;
  try {
    fd = openSync(path, FLAGS[mode] | O_NOFOLLOW | O_NONBLOCK, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ELOOP: the last component is a link; ENXIO: a FIFO nobody reads (opened for writing); EISDIR: a folder.
    if (code === 'ELOOP') throw new NotRegularFileError(`${shown(path)} is a symbolic link; give the ${what} itself`);
    if (code === 'ENXIO') throw new NotRegularFileError(`${shown(path)} is a FIFO or a socket; a ${what} is a regular file`);
    if (code === 'EISDIR') throw new NotRegularFileError(`${shown(path)} is a folder; a ${what} is a regular file`);
    throw err;
  }
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    throw new NotRegularFileError(`${shown(path)} is ${kindOf(stat)}; a ${what} is a regular file`);
  }
  return fd;
}

/** The whole text of a regular file, read through one descriptor (at most `maxBytes`). */
export function readRegularFile(path: string, what: string, maxBytes = 64 * 1024 * 1024): string {
  const fd = openRegularFile(path, 'read', what);
  try {
    const size = fstatSync(fd).size;
    if (size > maxBytes) throw new NotRegularFileError(`${shown(path)} is ${size} bytes, more than a ${what} can be (${maxBytes})`);
    const buffer = Buffer.alloc(size);
    let at = 0;
    while (at < size) {
      const n = readSync(fd, buffer, at, size - at, at);
      if (n === 0) break;
      at += n;
    }
    return buffer.subarray(0, at).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

function shown(path: string): string {
  return path.length > 300 ? `${path.slice(0, 299)}…` : path;
}
