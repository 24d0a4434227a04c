import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KeySource } from '../../src/vault';

/** A fresh temp folder. */
export function tempDir(prefix = 'pd-vault-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A key held in memory: lets a test open a vault with the right key, or the wrong one. */
export function memoryKey(key: Buffer = randomBytes(32), description = 'test key'): KeySource {
  return { kind: 'memory', description, key: async () => key };
}

/** Every regular file under `dir`, with its bytes. */
export function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  const out: { path: string; bytes: Buffer }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) out.push(...filesUnder(path));
    else if (stat.isFile()) out.push({ path, bytes: readFileSync(path) });
  }
  return out;
}

/** The encodings a careless writer might leave a secret in. */
export function encodings(secret: string): Buffer[] {
  return [Buffer.from(secret, 'utf8'), Buffer.from(secret, 'utf16le'), Buffer.from(Buffer.from(secret).toString('base64')), Buffer.from(Buffer.from(secret).toString('hex'))];
}

/** The files under `dir` in which `secret` appears in any of those encodings. */
export function filesContaining(dir: string, secret: string): string[] {
  return filesUnder(dir)
    .filter((f) => encodings(secret).some((e) => f.bytes.includes(e)))
    .map((f) => f.path);
}

export function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}
