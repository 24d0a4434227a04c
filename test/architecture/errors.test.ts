import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigFileError } from '../../src/agent/case/config-file-error';
import { errorMessage, errorText } from '../../src/base/error-text';
import { PortalDeskError } from '../../src/base/portal-desk-error';
import { UsageError } from '../../src/cli/cli-error';
import { StoreOpenError } from '../../src/store/database';
import { SchemaTooNewError } from '../../src/store/migrations';
import { VaultError } from '../../src/vault/vault-error';
import { ROOT } from './layer-table';

/** Classes that extend Error for control flow inside one file, never shown to anyone as an error. */
const NOT_ERRORS = new Set(['Stop', 'ProtocolFailure', 'ReadEnd']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [path.join(dir, e.name)] : [],
  );
}

describe('one error base: PortalDeskError', () => {
  it('names each error after its class, once, in the base', () => {
    const errors = [
      new UsageError('--db needs a path'),
      new ConfigFileError('case.json', 'fields.owner_name: expected a string'),
      new StoreOpenError('/tmp/x.sqlite', 'it is a folder', { cause: new Error('EISDIR') }),
      new SchemaTooNewError('schema 9 is newer than this Portal Desk (7)'),
      new VaultError('bad-input', 'The password is empty'),
    ];
    expect(errors.map((e) => e.name)).toEqual(['UsageError', 'ConfigFileError', 'StoreOpenError', 'SchemaTooNewError', 'VaultError']);
    for (const e of errors) {
      expect(e).toBeInstanceOf(PortalDeskError);
      expect(String(e)).toBe(`${e.name}: ${e.message}`);
    }
    expect((errors[2]!.cause as Error).message).toBe('EISDIR');
  });

  it('is what every error class in src extends; none names itself', () => {
    const direct: string[] = [];
    const naming: string[] = [];
    for (const file of sources(path.join(ROOT, 'src'))) {
      const text = readFileSync(file, 'utf8');
      const where = path.relative(ROOT, file);
      if (where === path.join('src', 'base', 'portal-desk-error.ts')) continue;
      for (const m of text.matchAll(/class (\w+) extends Error\b/g)) if (!NOT_ERRORS.has(m[1]!)) direct.push(`${where}: ${m[1]}`);
      if (/this\.name = |override readonly name = '/.test(text)) naming.push(where);
    }
    expect(direct).toEqual([]);
    expect(naming).toEqual([]);
  });

  it("says an error's text through src/base/error-text, not inline", () => {
    const playwright = new Error('locator.click: Timeout 5000ms exceeded.\nCall log:\n  - waiting for getByRole(\'button\')');
    expect(errorText(playwright)).toBe('locator.click: Timeout 5000ms exceeded.');
    expect(errorMessage(playwright)).toBe(playwright.message);
    expect(errorText('a string thrown')).toBe('a string thrown');
    // Left inline: layers that may not import src/base (shared, renderer), and folders other work is moving or owns.
    const exempt = ['src/shared/', 'src/renderer/', 'src/lab/', 'src/eval/', 'src/agent/guard/', 'src/base/'];
    const inline = sources(path.join(ROOT, 'src'))
      .map((file) => path.relative(ROOT, file).split(path.sep).join('/'))
      .filter((where) => !exempt.some((e) => where.startsWith(e)))
      .filter((where) => /(\w+) instanceof Error \? \1\.message : String\(\1\)/.test(readFileSync(path.join(ROOT, where), 'utf8')));
    expect(inline).toEqual([]);
  });
});
