import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { PortalDeskError } from './portal-desk-error';

/**
 * Files a person names on the command line (a head log, an export, a report) are opened as the
 * regular files they must be, and checked after opening, not before: the last component is never
 * followed as a link (O_NOFOLLOW), a FIFO or a device never blocks the open (O_NONBLOCK), and what
 * was opened is then fstat'd, so a path swapped for something else between a check and the open
 * cannot be read or written instead.
 */
export class NotRegularFileError extends PortalDeskError {}

/** A path under a root (a case folder, a cases folder) that leads out of it: by `..`, as an absolute path, or through a symbolic link. */
export class OutsideRootError extends PortalDeskError {
  constructor(
    message: string,
    /** A symbolic link on the way pointed out of the root. */
    readonly throughLink: boolean,
  ) {
    super(message);
  }
}

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_EXCL, O_TRUNC, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;

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

/** Links followed on the way to one file, at most (as the kernel's own limit). */
const MAX_LINKS = 40;
/** Where the kernel names an open descriptor: a component opened under it is looked up in that very folder. */
const FD_FOLDER = '/proc/self/fd';

/**
 * Opens `relativePath` under the folder `root` one component at a time, never letting a path
 * swapped for a link between a check and an open lead out of the root: each component is opened
 * without following a link (O_NOFOLLOW) in the folder opened just before it, through its
 * descriptor (`/proc/self/fd/N/name`), so a folder on the way swapped for a link after it was
 * opened changes nothing. A symbolic link met on the way is read and followed only while it stays
 * under the root (its target's components are opened the same way); `..` above the root, an
 * absolute path, or a link out of it throws OutsideRootError. What was opened is then checked:
 * a regular file (`file`) or a folder (`folder`), else NotRegularFileError; a missing component
 * throws the usual ENOENT. Answers the open descriptor and the name of the last component.
 * Where the system has no `/proc/self/fd`, the folders are reached by path, each still opened
 * without following a link.
 */
export function openBeneath(root: string, relativePath: string, kind: 'file' | 'folder', what: string): { fd: number; name: string } {
  if (isAbsolute(relativePath)) throw new OutsideRootError(`${shown(relativePath)} is an absolute path; a ${what} is named inside its folder`, false);
  const realRoot = realpathSync(root);
  const byDescriptor = existsSync(FD_FOLDER);
  const folders: Array<{ fd: number; path: string }> = [{ fd: openSync(realRoot, O_RDONLY | O_DIRECTORY), path: realRoot }];
  const pending = components(relativePath);
  let name = '';
  let links = 0;
  try {
    for (;;) {
      const part = pending.shift();
      if (part === undefined) break;
      if (part === '..') {
        if (folders.length === 1) throw new OutsideRootError(`${shown(relativePath)} leads out of its folder`, links > 0);
        closeSync(folders.pop()!.fd);
        continue;
      }
      const top = folders.at(-1)!;
      const here = byDescriptor ? `${FD_FOLDER}/${top.fd}/${part}` : join(top.path, part);
      const last = pending.length === 0;
      let fd: number;
      try {
        fd = openSync(here, last && kind === 'file' ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK : O_RDONLY | O_NOFOLLOW | O_DIRECTORY);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if ((code !== 'ELOOP' && code !== 'ENOTDIR') || !lstatSync(here).isSymbolicLink()) {
          if (code === 'ENOTDIR') throw new NotRegularFileError(`${shown(relativePath)}: ${shown(part)} is not a folder`);
          throw err;
        }
        // A link: its target is taken apart and opened the same way, from the folder it sits in (or from the root).
        if (++links > MAX_LINKS) throw new NotRegularFileError(`${shown(relativePath)} goes through more than ${MAX_LINKS} symbolic links`);
        const target = readlinkSync(here);
        if (isAbsolute(target)) {
          const inRoot = relative(realRoot, target);
          if (inRoot === '..' || inRoot.startsWith(`..${sep}`) || isAbsolute(inRoot)) throw new OutsideRootError(`${shown(relativePath)} leads out of its folder through a symbolic link`, true);
          while (folders.length > 1) closeSync(folders.pop()!.fd);
          pending.unshift(...components(inRoot));
        } else {
          pending.unshift(...components(target));
        }
        continue;
      }
      if (last) {
        name = part;
        folders.push({ fd, path: join(top.path, part) });
        break;
      }
      folders.push({ fd, path: join(top.path, part) });
    }
    const opened = folders.at(-1)!;
    if (folders.length === 1 && kind === 'file') throw new NotRegularFileError(`${shown(relativePath)} is the folder itself; a ${what} is a regular file`);
    const stat = fstatSync(opened.fd);
    if (kind === 'file' && !stat.isFile()) throw new NotRegularFileError(`${shown(relativePath)} is ${kindOf(stat)}; a ${what} is a regular file`);
    if (kind === 'folder' && !stat.isDirectory()) throw new NotRegularFileError(`${shown(relativePath)} is ${kindOf(stat)}; a ${what} is a folder`);
    // The opened one is the caller's now; the folders above it are closed below.
    folders.pop();
    return { fd: opened.fd, name };
  } finally {
    for (const f of folders) closeSync(f.fd);
  }
}

function components(path: string): string[] {
  return path.split(/[\\/]+/).filter((part) => part !== '' && part !== '.');
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
