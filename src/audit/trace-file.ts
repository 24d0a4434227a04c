import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { sha256Hex } from '../base/canonical-json';
import { errorText } from '../base/error-text';
import { writeOwnerOnly } from '../base/owner-only-file';
import type { TraceKeeper, TraceRecord } from '../shared/trace';
import { assertNoSecrets, SecretInReportError } from './secret-scan';

/**
 * A run's Playwright trace (context tracing: DOM snapshots, screenshots, network, console), kept
 * beside the store for an auditor who wants the DOM, openable with the trace viewer playwright-core
 * ships (`npx playwright-core show-trace FILE`). A trace holds request bodies and typed values, so
 * before it is kept every file inside the zip is read (inflated) and scanned for the run's secrets
 * (the stored portal password, the one-time codes the clerk gave) with the exporters' final scan,
 * as written and as a form or URL would carry them. One hit and the trace is dropped, unkept,
 * with the reason; a zip it cannot read whole is dropped too. A kept trace is 0600 in a 0700
 * `traces/` folder, named by the run, and its sha256 goes into the run's chained outcome record.
 */
export function keepTrace(zipPath: string, folder: string, runId: string, secrets: readonly string[]): TraceRecord {
  let bytes: Buffer;
  let entries: ZipEntry[];
  try {
    bytes = readFileSync(zipPath);
    entries = readZip(bytes);
  } catch (err) {
    return { kept: false, reason: `the trace could not be read whole (${errorText(err)}), so it could not be scanned for secrets; it was not kept` };
  }
  const forms = secretForms(secrets);
  for (const entry of entries) {
    try {
      // Bytes as latin-1 text, the secrets' UTF-8 bytes likewise: a byte-for-byte search of any file, text or not.
      assertNoSecrets(entry.data.toString('latin1'), forms, `the trace's ${entry.name}`);
    } catch (err) {
      if (!(err instanceof SecretInReportError)) throw err;
      return { kept: false, reason: `the trace held a secret of the run (a stored password or a one-time code) in its ${entry.name}; it was not kept` };
    }
  }
  const dir = join(folder, 'traces');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const file = `${runId}.zip`;
  writeOwnerOnly(join(dir, file), bytes);
  return { kept: true, file: `traces/${file}`, sha256: sha256Hex(bytes), bytes: bytes.length, files: entries.length };
}

/** The keeper a composition root gives the run service: traces kept in `folder`/traces. */
export function traceKeeperIn(folder: string): TraceKeeper {
  return { keep: (zipPath, runId, secrets) => keepTrace(zipPath, folder, runId, secrets) };
}

/** Each secret as the trace may carry it: as typed, in a URL or form body, as latin-1 text of its UTF-8 bytes. */
function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const s of secrets) {
    for (const form of [s, encodeURIComponent(s), encodeURIComponent(s).replace(/%20/g, '+')]) forms.add(Buffer.from(form, 'utf8').toString('latin1'));
  }
  return [...forms];
}

interface ZipEntry {
  name: string;
  data: Buffer;
}

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;

/**
 * Every file of a zip, inflated: the central directory read from its end record, each entry from
 * its local header (stored or deflated; zip64 and other methods refused, so nothing goes unread).
 */
function readZip(zip: Buffer): ZipEntry[] {
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === END_OF_DIRECTORY) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error('no zip directory at its end');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  if (count === 0xffff || at === 0xffffffff) throw new Error('a zip64 archive, not read');
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== DIRECTORY_ENTRY) throw new Error(`directory entry ${n} is damaged`);
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    if (compressed === 0xffffffff || size === 0xffffffff || local === 0xffffffff) throw new Error(`${name} is a zip64 entry, not read`);
    if (zip.readUInt32LE(local) !== LOCAL_HEADER) throw new Error(`${name}: its local header is damaged`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + compressed);
    let data: Buffer;
    if (method === 0) data = Buffer.from(raw);
    else if (method === 8) data = inflateRawSync(raw);
    else throw new Error(`${name} is compressed by method ${method}, not read`);
    if (data.length !== size) throw new Error(`${name} inflates to ${data.length} bytes, not the ${size} its directory says`);
    entries.push({ name, data });
    at += 46 + skip;
  }
  return entries;
}
