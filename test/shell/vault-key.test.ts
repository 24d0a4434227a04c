import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appKeySource, sealedKeyPath } from '../../src/main/vault-key';
import type { KeySealer } from '../../src/vault';

/** Which vault key the app uses: safeStorage-sealed, unless the vault already belongs to another key. */

const homes: string[] = [];
afterEach(() => {
  for (const dir of homes.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function home(manifestKind?: string): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'portal-desk-home-'));
  homes.push(dir);
  if (manifestKind) {
    mkdirSync(join(dir, 'vault'), { recursive: true });
    writeFileSync(
      join(dir, 'vault', 'vault.json'),
      JSON.stringify({ format: 'portal-desk/vault', version: 1, keyId: '0123456789abcdef', keySource: { kind: manifestKind, description: `${manifestKind} key` }, createdAt: '2026-12-01T00:00:00.000Z' }),
    );
  }
  return { PORTAL_DESK_HOME: dir };
}

const sealer: KeySealer = { name: 'test sealer', seal: async (t) => Buffer.from(t), unseal: async (b) => ({ text: b.toString() }) };
const refused = (): KeySealer => {
  throw new Error('Electron safeStorage would use its basic_text backend.');
};

describe('appKeySource', () => {
  it('seals a new vault’s key with safeStorage', async () => {
    const env = home();
    const source = await appKeySource({ env, sealer: () => sealer, report: () => undefined });
    expect(source?.kind).toBe('sealed');
    expect(source?.description).toContain(sealedKeyPath(env.PORTAL_DESK_HOME!));
  });

  it('keeps a vault made by the command line on its own key (file or keyring)', async () => {
    for (const kind of ['file', 'keyring']) {
      expect(await appKeySource({ env: home(kind), sealer: () => sealer, report: () => undefined }), kind).toBeUndefined();
    }
  });

  it('falls back to the command line’s key, loudly, when safeStorage is refused and no vault exists yet', async () => {
    const lines: string[] = [];
    expect(await appKeySource({ env: home(), sealer: refused, report: (l) => lines.push(l) })).toBeUndefined();
    expect(lines).toEqual([expect.stringMatching(/basic_text.*command line's key/)]);
  });

  it('refuses, with the reason, to open an app-sealed vault when safeStorage is refused', async () => {
    const source = await appKeySource({ env: home('sealed'), sealer: refused, report: () => undefined });
    await expect(source!.key()).rejects.toThrow(/sealed by the Portal Desk app.*basic_text/);
  });
});
