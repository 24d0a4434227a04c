import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCaseDocument } from '../../src/agent/case/documents';
import { loadCaseFromFolder } from '../../src/console/case-folder';
import { readRunExportFile } from '../../src/audit';
import { KeyFileSource, Vault, VaultError } from '../../src/vault';
import { memoryKey } from '../vault/temp-vault';
import { REPO, runCli } from '../support/cli';

/**
 * Issue 29, item 7 (its path part): every path a person names is opened as the regular file or
 * folder it must be. A FIFO or /dev/zero used to hang `verify --heads` and `--append-head`; an
 * export into a missing folder and a vault folder that is a file exited 1 (the code for
 * "tampered") with a raw errno line. Each is now one line, exit 2, nothing written and no hang
 * (each process is killed after 30 s: a hang fails the test, it does not pass it).
 */
describe('path arguments (the CLI, as a real process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pd-paths-'));
  const fifo = join(dir, 'fifo');
  const fifoExport = join(dir, 'run-export.json');
  execFileSync('mkfifo', [fifo, fifoExport]);
  const oneLine = (stderr: string) => stderr.trim().split('\n');

  it.each([
    ['--heads on /dev/zero', ['verify', 'run-1', '--heads', '/dev/zero'], /\/dev\/zero is a device; a head log is a regular file/],
    ['--heads on a FIFO', ['verify', 'run-1', '--heads', fifo], /is a FIFO; a head log is a regular file/],
    ['--append-head on a FIFO', ['verify', 'run-1', '--append-head', fifo], /--append-head: .* is a FIFO or a socket; a head log is a regular file/],
    ['--append-head into a missing folder', ['verify', 'run-1', '--append-head', join(dir, 'no', 'heads.log')], /--append-head: no folder .* to keep the head log/],
    ['an export file that is a FIFO', ['verify', fifoExport], /is a FIFO; a run export is a regular file/],
    ['replay --export into a missing folder', ['replay', 'run-1', '--export', join(dir, 'missing', 'report.html')], /--export .*: there is no folder .* to write it in/],
  ])('refuses %s in one line, exit 2, without hanging', { timeout: 60_000 }, async (_what, args, message) => {
    const r = await runCli(args, { timeoutMs: 30_000 });
    expect(r.signal, 'the command hung and was killed').toBeNull();
    expect(r.code, r.stderr).toBe(2);
    expect(oneLine(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });

  it('refuses a head log reached through a symbolic link (the link is not followed), and one that is a folder', { timeout: 60_000 }, async () => {
    const real = join(dir, 'real-heads.log');
    writeFileSync(real, '');
    const link = join(dir, 'linked-heads.log');
    symlinkSync(real, link);
    const viaLink = await runCli(['verify', 'run-1', '--heads', link], { timeoutMs: 30_000 });
    expect(viaLink.code).toBe(2);
    expect(viaLink.stderr).toMatch(/is a symbolic link; give the head log itself/);
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    const asFolder = await runCli(['verify', 'run-1', '--append-head', folder], { timeoutMs: 30_000 });
    expect(asFolder.code).toBe(2);
    expect(asFolder.stderr).toMatch(/is a folder; a head log is a regular file/);
    expect(readFileSync(real, 'utf8')).toBe('');
  });

  it('refuses a vault folder that is a file before anything runs: one line, exit 2, no store written', { timeout: 120_000 }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'pd-home-'));
    writeFileSync(join(home, 'vault'), 'not a folder');
    const db = join(dir, 'store.sqlite');
    const r = await runCli(['run', '--case', join(REPO, 'resources/cases/shops-renewal-anand-bakery.json'), '--db', db, '--approve', 'none'], { env: { PORTAL_DESK_HOME: home }, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(oneLine(r.stderr)).toEqual([`portal-desk run: The vault folder ${join(home, 'vault')} is a file; the vault keeps its records in a folder of its own there (move what is there away, or set PORTAL_DESK_HOME)`]);
    expect(existsSync(db)).toBe(false);
    const list = await runCli(['vault', 'list'], { env: { PORTAL_DESK_HOME: home }, timeoutMs: 30_000 });
    expect(list.code).toBe(2);
    expect(list.stderr).toMatch(/The vault folder .* is a file/);
  });

  // The readers themselves, not only a check before them: a path swapped for a FIFO or a link after any check
  // is refused where it is read, through the descriptor that was checked (the export reader and the vault's
  // records and manifest read by path before: a FIFO there blocked them, a link was followed).
  it('the export reader and the vault read the file they checked: a FIFO or a link in its place is refused, without hanging', async () => {
    const here = mkdtempSync(join(dir, 'readers-'));
    const exportFifo = join(here, 'swapped-export.json');
    execFileSync('mkfifo', [exportFifo]);
    expect(() => readRunExportFile(exportFifo)).toThrow(/is a FIFO; a run export is a regular file/);
    const realExport = join(here, 'real-export.json');
    writeFileSync(realExport, '{}');
    const linkedExport = join(here, 'linked-export.json');
    symlinkSync(realExport, linkedExport);
    expect(() => readRunExportFile(linkedExport)).toThrow(/is a symbolic link; give the run export itself/);

    // A record's place in the vault: credentials/<32 hex>.json.
    const record = join('credentials', '0123456789abcdef0123456789abcdef.json');
    const fifoVault = mkdtempSync(join(here, 'vault-fifo-'));
    mkdirSync(join(fifoVault, 'credentials'));
    execFileSync('mkfifo', [join(fifoVault, record)]);
    const fifoRefusal = await new Vault({ dir: fifoVault, keySource: memoryKey() }).list().catch((err: unknown) => err);
    expect(fifoRefusal).toBeInstanceOf(VaultError);
    expect(fifoRefusal).toMatchObject({ problem: 'damaged', message: expect.stringMatching(/is not a regular file \(a FIFO\).*Nothing was read/) });
    const linkVault = mkdtempSync(join(here, 'vault-link-'));
    mkdirSync(join(linkVault, 'credentials'));
    symlinkSync(realExport, join(linkVault, record));
    const linkRefusal = await new Vault({ dir: linkVault, keySource: memoryKey() }).list().catch((err: unknown) => err);
    expect(linkRefusal).toMatchObject({ problem: 'damaged', message: expect.stringMatching(/is a symbolic link; the vault reads only the files it wrote/) });
    const manifestLink = mkdtempSync(join(here, 'vault-manifest-'));
    symlinkSync(realExport, join(manifestLink, 'vault.json'));
    const manifestRefusal = await new Vault({ dir: manifestLink, keySource: memoryKey() }).set('client-1', 'shops', { username: 'u', password: 'p' }).catch((err: unknown) => err);
    expect(manifestRefusal).toMatchObject({ problem: 'damaged', message: expect.stringMatching(/vault\.json is a symbolic link/) });
    // The key file keeps its own words for the same two (its reader checks what it opened itself), and a FIFO there does not block it either.
    const keyFifo = join(here, 'vault.key');
    execFileSync('mkfifo', [keyFifo]);
    await expect(new KeyFileSource(keyFifo).key()).rejects.toMatchObject({ problem: 'key-file', message: expect.stringMatching(/vault\.key is not a regular file/) });
    await expect(new KeyFileSource(linkedExport).key()).rejects.toMatchObject({ problem: 'key-file', message: expect.stringMatching(/is a symbolic link; Portal Desk uses only a plain file/) });
  });
});

/**
 * Issue 29, the cases folder and documents: a path under a root is opened one component at a
 * time, never following a link out of it. Another process swaps a subfolder of the cases folder
 * for a link to a folder outside, back and forth as fast as it can, while this one reads a
 * document through that subfolder 20,000 times (and a case file 5,000 times): every read gives the file
 * inside or is refused; none gives the file outside (the old check-then-open gave 9 in 20,000).
 */
describe('the cases folder and case documents under a folder swapped for a link', () => {
  it('never reads a file outside its folder, whatever is swapped during the read', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pd-swap-'));
    const cases = join(dir, 'cases');
    const outside = join(dir, 'outside');
    mkdirSync(join(cases, 'sub'), { recursive: true });
    mkdirSync(outside);
    const caseJson = (clientId: string) => JSON.stringify({ caseId: 'swap-1', clientId, portal: 'docs', task: 'licence', fields: { business_name: 'Anand Bakery' } });
    writeFileSync(join(cases, 'sub', 'a.pdf'), '%PDF inside');
    writeFileSync(join(cases, 'sub', 'a.json'), caseJson('inside-client'));
    writeFileSync(join(outside, 'a.pdf'), '%PDF outside: another client');
    writeFileSync(join(outside, 'a.json'), caseJson('outside-client'));
    symlinkSync(outside, join(cases, 'link'));
    const swapper = spawn(
      process.execPath,
      ['-e', "const fs = require('fs'); const d = process.argv[1]; process.stdout.write('ready\\n'); for (;;) { fs.renameSync(d + '/sub', d + '/real'); fs.renameSync(d + '/link', d + '/sub'); fs.renameSync(d + '/sub', d + '/link'); fs.renameSync(d + '/real', d + '/sub'); }", cases],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve) => swapper.stdout.once('data', () => resolve()));
      const documents = { inside: 0, outside: 0, refused: 0 };
      const caseFiles = { inside: 0, outside: 0, refused: 0 };
      for (let i = 0; i < 20_000; i++) {
        const read = readCaseDocument({ folder: cases, documents: { permit: 'sub/a.pdf' } }, 'permit');
        if (!read.ok) documents.refused += 1;
        else if (read.document.bytes.toString() === '%PDF inside') documents.inside += 1;
        else documents.outside += 1;
        // A case file is parsed and validated too: every fourth turn keeps the test short.
        if (i % 4 !== 0) continue;
        try {
          const loaded = loadCaseFromFolder(cases, 'sub/a.json');
          if (loaded.clientId === 'inside-client') caseFiles.inside += 1;
          else caseFiles.outside += 1;
        } catch {
          caseFiles.refused += 1;
        }
      }
      expect(documents.outside, JSON.stringify(documents)).toBe(0);
      expect(caseFiles.outside, JSON.stringify(caseFiles)).toBe(0);
      // The swaps did not stop the reads: the file inside was read, and refused mid-swap too.
      expect(documents.inside).toBeGreaterThan(0);
      expect(caseFiles.inside).toBeGreaterThan(0);
      expect(documents.refused + caseFiles.refused).toBeGreaterThan(0);
    } finally {
      swapper.kill('SIGKILL');
    }
  });

  it('`console --cases` names a folder: a file there is refused in one line, exit 2, before anything starts', { timeout: 60_000 }, async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pd-cases-')), 'cases.json');
    writeFileSync(file, '{}');
    const r = await runCli(['console', '--browser', '--no-open', '--cases', file], { timeoutMs: 30_000 });
    expect(r.signal, 'the command hung and was killed').toBeNull();
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([`portal-desk console: --cases: ${file} is not a folder; the cases folder is a folder of case files`]);
  });
});
