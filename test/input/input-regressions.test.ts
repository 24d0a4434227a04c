import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCaseFile } from '../../src/agent/case/case-files';
import { MAX_CONFIG_BYTES } from '../../src/agent/case/load-json';
import { JSON_LIMITS, parseStrictJson, StrictJsonError } from '../../src/agent/case/strict-json';
import { ConfigFileError } from '../../src/agent/case/config-file-error';
import { loadPortalProfile } from '../../src/agent/case/portal-profiles';
import { EXIT } from '../../src/cli/cli-error';
import { vaultCommand, type VaultCommandIo } from '../../src/cli/commands/vault';
import { sampleCases } from '../../lab/eval/suites/attacks';
import { loadLabCases } from '../../lab/eval/suites/lab';
import { openVault } from '../../src/vault';
import { LINE_CAP, REPO, SAMPLE_CASE, SAMPLE_PROFILE } from './malformed';

const dir = mkdtempSync(join(tmpdir(), 'pd-input-'));
let n = 0;
function file(content: string | Buffer): string {
  const path = join(dir, `f${n++}.json`);
  writeFileSync(path, content);
  return path;
}
function refused(load: () => unknown): string {
  try {
    load();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigFileError);
    const message = (err as Error).message;
    expect(message).not.toMatch(/[\r\n]/);
    expect(message.length).toBeLessThanOrEqual(LINE_CAP);
    return message;
  }
  throw new Error('the input was accepted');
}
const sample = JSON.parse(SAMPLE_CASE) as { fields: Record<string, unknown>; aliases: Record<string, string[]> };

describe('issue 12: files that are not case files', () => {
  it('refuses a FIFO and a character device at once, without opening them for a blocking read', () => {
    const fifo = join(dir, 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    expect(refused(() => loadCaseFile(fifo))).toBe(`${fifo}: is a named pipe (FIFO); a case file is a regular JSON file`);
    expect(refused(() => loadCaseFile('/dev/zero'))).toMatch(/is a character device/);
    expect(refused(() => loadPortalProfile(fifo))).toMatch(/is a named pipe.*a portal profile is a regular JSON file/);
    expect(refused(() => loadCaseFile(dir))).toMatch(/is a folder/);
  });

  it('never quotes the file: a case path linked to the password file says where, not what it holds', () => {
    const link = join(dir, 'passwd.json');
    symlinkSync('/etc/passwd', link);
    const message = refused(() => loadCaseFile(link));
    expect(message).toMatch(/not valid JSON: line 1, column 1/);
    expect(message).not.toMatch(/root|bash|:x:/);
  });

  it('keeps a 10-million-character field name and 200,000 bad keys to one short line', () => {
    expect(refused(() => loadCaseFile(file(JSON.stringify({ ...sample, fields: { ['a'.repeat(10_000_000)]: 'x' } }))))).toMatch(/larger than 1024 KiB/);
    const many = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`_${i}`, 'x']));
    expect(refused(() => loadCaseFile(file(JSON.stringify({ ...sample, fields: many }))))).toMatch(/larger than 1024 KiB/);
    // Under the size cap: a 900,000-character name is cut, and 60,000 keys stop at the key cap.
    expect(refused(() => loadCaseFile(file(JSON.stringify({ ...sample, fields: { ['b'.repeat(900_000)]: 'x' } }))))).toMatch(/fields\.b{40}… \(900000 characters\): invalid key/);
    const keys = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`${i}`, 1]));
    expect(refused(() => loadCaseFile(file(JSON.stringify({ ...sample, fields: keys }))))).toMatch(/invalid case file: fields: more than 1000 keys in one object \(line 1, column \d+\)/);
  });
});

describe('issue 12: silent changes to a case are refused', () => {
  it('refuses __proto__ in fields and in aliases instead of dropping it', () => {
    expect(refused(() => loadCaseFile(file(SAMPLE_CASE.replace(/"fields": ?\{/, '"fields": {"__proto__": "x", '))))).toMatch(/fields\.__proto__: a key named "__proto__" is refused/);
    expect(refused(() => loadCaseFile(file(SAMPLE_CASE.replace(/"aliases": ?\{/, '"aliases": {"__proto__": ["x"], '))))).toMatch(/aliases\.__proto__: a key named "__proto__" is refused/);
  });

  it('refuses invalid UTF-8 instead of typing U+FFFD, and a NUL or an escape sequence in a value', () => {
    const text = JSON.stringify(sample);
    const at = text.indexOf('Anand');
    const bad = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xc3, 0x28]), Buffer.from(text.slice(at))]);
    expect(refused(() => loadCaseFile(file(bad)))).toMatch(new RegExp(`not UTF-8 text: the byte at offset ${at} \\(line 1\\)`));
    expect(refused(() => loadCaseFile(file(JSON.stringify({ ...sample, fields: { ...sample.fields, business_name: 'Anand\u0000Bakery' } }))))).toMatch(/fields\.business_name: holds a control character \(U\+0000\) at character 6/);
    expect(refused(() => loadCaseFile(file(JSON.stringify({ ...sample, aliases: { business_name: ['\u001b[2J'] } }))))).toMatch(/aliases\.business_name\.0: holds a control character \(U\+001B\)/);
    // A note is never typed: line breaks are fine there.
    expect(loadCaseFile(file(JSON.stringify({ ...sample, note: 'line one\nline two' }))).note).toBe('line one\nline two');
  });

  it('refuses a key given twice, with both lines, instead of keeping the last', () => {
    const text = SAMPLE_CASE.replace(/"fields": ?\{/, '"fields": {\n"business_name": "First",');
    expect(refused(() => loadCaseFile(file(text)))).toMatch(/fields\.business_name: this key is given twice \(lines \d+ and \d+\)/);
  });

  it('reads a file saved with a UTF-8 BOM as the same case; a BOM elsewhere is named', () => {
    expect(loadCaseFile(file(`\ufeff${SAMPLE_CASE}`))).toEqual(loadCaseFile(file(SAMPLE_CASE)));
    expect(refused(() => loadCaseFile(file(SAMPLE_CASE.replace(/"caseId": ?/, '"caseId": \ufeff'))))).toMatch(/byte order mark \(U\+FEFF\)/);
  });

  it('still reads every shipped case file and profile', () => {
    for (const folder of ['resources/cases', 'resources/eval/cases']) {
      for (const name of readdirSync(join(REPO, folder)).filter((f) => f.endsWith('.json'))) expect(() => loadCaseFile(join(REPO, folder, name)), name).not.toThrow();
    }
    for (const id of ['shops', 'power', 'tax']) expect(loadPortalProfile(id).id).toBe(id);
  });

  it('names the profile file when a profile is broken', () => {
    const folder = join(dir, 'portals');
    mkdirSync(folder);
    const path = join(folder, 'shops.json');
    writeFileSync(path, SAMPLE_PROFILE.replace(/"name": ?/, '"id": "shops", "name": '));
    expect(refused(() => loadPortalProfile('shops', [folder]))).toMatch(new RegExp(`^${path}: invalid portal profile: id: this key is given twice`));
  });
});

describe('issue 12: a suite reads its case files one by one', () => {
  it('the lab suite reports a malformed case file in one line and loads the rest', () => {
    const cases = join(dir, 'lab-cases');
    mkdirSync(cases);
    const good = readdirSync(join(REPO, 'resources/eval/cases')).filter((f) => f.endsWith('.json')).slice(0, 3);
    for (const f of good) writeFileSync(join(cases, f), readFileSync(join(REPO, 'resources/eval/cases', f)));
    writeFileSync(join(cases, 'broken.json'), '{"caseId": ');
    const problems: ConfigFileError[] = [];
    const loaded = loadLabCases(cases, join(REPO, 'resources/eval/lab-setup.json'), (err) => problems.push(err));
    expect(loaded.map((c) => c.caseFile.caseId).sort()).toHaveLength(3);
    expect(problems.map((p) => p.message)).toEqual([`${join(cases, 'broken.json')}: the case file is not valid JSON: line 1, column 12: the file ends where a value should be (inside caseId)`]);
  });
});

describe('issue 12: the attacks suite and a malformed sample case', () => {
  it('tells the file in one line and goes on with the others', () => {
    const cases = join(dir, 'samples');
    mkdirSync(cases);
    for (const f of ['power-name-change-deshpande.json', 'shops-renewal-anand-bakery.json']) writeFileSync(join(cases, f), readFileSync(join(REPO, 'resources/cases', f)));
    writeFileSync(join(cases, 'aaa-broken.json'), '{"caseId": "x",}');
    const lines: string[] = [];
    const samples = sampleCases((line) => lines.push(line), cases);
    expect(samples.map((c) => c.portal)).toEqual(['power', 'shops']);
    expect(lines).toEqual([`attacks suite: skipping a sample case file that cannot be used: ${join(cases, 'aaa-broken.json')}: the case file is not valid JSON: line 1, column 16: a comma before "}" (JSON allows no trailing comma)`]);
  });
});

describe('issue 12: a missing vault key', () => {
  const io = (home: string, stdin = ''): VaultCommandIo & { errors: string[] } => {
    const errors: string[] = [];
    return {
      errors,
      stdin: (async function* () {
        yield Buffer.from(stdin);
      })(),
      out: () => undefined,
      err: (t) => errors.push(t),
      env: { PORTAL_DESK_HOME: home, PATH: '/nonexistent' },
      prompt: async () => null,
    };
  };

  it('is refused in one line saying which key, where, and how to restore it; no new key appears', async () => {
    const home = mkdtempSync(join(tmpdir(), 'pd-vault-'));
    expect(await vaultCommand(['set', '--client', 'c1', '--portal', 'shops', '--username', 'u', '--password-stdin'], io(home, 'Secret-Pass-1\n'))).toBe(EXIT.ok);
    const key = readFileSync(join(home, 'vault.key'));
    rmSync(join(home, 'vault.key'));
    for (const args of [['list'], ['set', '--client', 'c2', '--portal', 'shops', '--username', 'u', '--password-stdin'], ['init']]) {
      const c = io(home, 'Other-Pass-2\n');
      expect(await vaultCommand(args, c)).toBe(EXIT.badInput);
      expect(c.errors).toHaveLength(1);
      expect(c.errors[0]).toMatch(new RegExp(`^portal-desk vault: The vault at ${home}/vault holds logins sealed with key [0-9a-f]{16} from the key file ${home}/vault.key, but that file is missing\\. Nothing was created or changed\\. Restore ${home}/vault.key from your backup`));
      expect(existsSync(join(home, 'vault.key'))).toBe(false);
    }
    // The commands that run cases are stopped before anything runs, the same way.
    await expect(openVault({ env: { PORTAL_DESK_HOME: home, PATH: '/nonexistent' } })).rejects.toThrow(/that file is missing/);
    // Restored, it opens again with the login intact.
    writeFileSync(join(home, 'vault.key'), key, { mode: 0o600 });
    const opened = await openVault({ env: { PORTAL_DESK_HOME: home, PATH: '/nonexistent' } });
    expect((await opened.vault.get('c1', 'shops'))?.password).toBe('Secret-Pass-1');
  });

  it('vault init gives a new vault its key once, and says so', async () => {
    const home = mkdtempSync(join(tmpdir(), 'pd-vault-'));
    const out: string[] = [];
    const c = { ...io(home), out: (t: string) => out.push(t) };
    expect(await vaultCommand(['init'], c)).toBe(EXIT.ok);
    expect(await vaultCommand(['init'], c)).toBe(EXIT.ok);
    expect(out[0]).toMatch(/is sealed with key [0-9a-f]{16} from the key file .*vault\.key\. Back that up/);
    expect(out[1]).toMatch(/already has its key .*nothing was changed/);
  });
});

describe('issue 12: the bounds hold at their edge', () => {
  it('reads a case file of exactly MAX_CONFIG_BYTES bytes and refuses one byte more', () => {
    const padded = (size: number) => Buffer.concat([Buffer.from(SAMPLE_CASE), Buffer.alloc(size - Buffer.byteLength(SAMPLE_CASE), ' ')]);
    expect(loadCaseFile(file(padded(MAX_CONFIG_BYTES))).caseId).toBe(JSON.parse(SAMPLE_CASE).caseId);
    expect(refused(() => loadCaseFile(file(padded(MAX_CONFIG_BYTES + 1))))).toMatch(/is larger than 1024 KiB/);
  });

  it('parses JSON nested exactly JSON_LIMITS.maxDepth deep and refuses one level more, at its line and column', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(() => parseStrictJson(nested(JSON_LIMITS.maxDepth))).not.toThrow();
    const tooDeep = () => parseStrictJson(nested(JSON_LIMITS.maxDepth + 1));
    expect(tooDeep).toThrow(StrictJsonError);
    expect(tooDeep).toThrow(`0.0.….0.0: nested deeper than ${JSON_LIMITS.maxDepth} levels (line 1, column ${JSON_LIMITS.maxDepth + 1})`);
  });
});
