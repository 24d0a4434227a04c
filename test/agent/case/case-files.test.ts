import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCaseFile } from '../../../src/agent/case/case-files';
import { ConfigFileError } from '../../../src/agent/case/config-file-error';
import { loadPortalProfile } from '../../../src/agent/case/portal-profiles';

const dir = mkdtempSync(join(tmpdir(), 'pd-case-'));
function write(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}
const good = { caseId: 'C-1', clientId: 'client-1', portal: 'shops', task: 'shop-registration-renewal', fields: { business_name: 'Lakshmi Stores', open_on_sundays: false } };

describe('case files', () => {
  it('loads a valid case file and fills defaults', () => {
    const c = loadCaseFile(write('ok.json', good));
    expect(c.fields.business_name).toBe('Lakshmi Stores');
    expect(c.aliases).toEqual({});
    expect(c.declarations).toEqual([]);
  });

  it.each([
    ['a field value of the wrong type', { ...good, fields: { business_name: 42 } }, /fields\.business_name/],
    ['a missing client id', { ...good, clientId: undefined }, /clientId/],
    ['an unknown top-level key', { ...good, pasword: 'x' }, /pasword/],
    ['a field name with spaces', { ...good, fields: { 'business name': 'x' } }, /fields\.business name/],
    ['no fields at all', { ...good, fields: {} }, /fields: at least one field/],
    ['a group that skips a person', { ...good, fields: { 'partners[0].full_name': 'A', 'partners[2].full_name': 'C' } }, /skips partners\[1\]/],
    ['a group named like a plain field', { ...good, fields: { partners: 'two', 'partners[0].full_name': 'A' } }, /both a plain field and a repeated group/],
    ['a malformed group path', { ...good, fields: { 'partners[0]full_name': 'A' } }, /group\[index\]\.field/],
    ['a group index with a leading zero', { ...good, fields: { 'partners[01].full_name': 'A' } }, /group\[index\]\.field/],
  ])('refuses %s, naming the field', (_what, content, message) => {
    const path = write('bad.json', content);
    expect(() => loadCaseFile(path)).toThrow(ConfigFileError);
    expect(() => loadCaseFile(path)).toThrow(message);
  });

  it('holds repeated groups as indexed paths beside plain fields (old case files load as before)', () => {
    const c = loadCaseFile(write('groups.json', { ...good, fields: { ...good.fields, 'partners[0].full_name': 'Meena Rao', 'partners[1].full_name': 'Arjun Iyer', 'partners[1].date_of_birth': '1984-10-21' }, aliases: { full_name: ['Name of partner'] } }));
    expect(c.fields['partners[1].full_name']).toBe('Arjun Iyer');
    expect(c.fields.business_name).toBe('Lakshmi Stores');
    expect(c.aliases).toEqual({ full_name: ['Name of partner'] });
  });

  it('refuses broken JSON and missing files with a one-line reason', () => {
    expect(() => loadCaseFile(write('broken.json', '{"caseId": '))).toThrow(/not valid JSON/);
    expect(() => loadCaseFile(join(dir, 'nope.json'))).toThrow(/no such case file/);
  });
});

describe('portal profiles', () => {
  it('finds a profile by id in the given folders and refuses unknown ids', () => {
    const profile = { id: 'water', name: 'Water board', startUrl: 'https://water.gov.example/', allowedHosts: ['water.gov.example'], confirmation: { applicationNumberPattern: 'WTR-\\d+', pageContains: 'submitted' } };
    write('water.json', profile);
    const loaded = loadPortalProfile('water', [dir]);
    expect(loaded.riskyWords).toContain('submit');
    expect(loaded.allowHttp).toBe(false);
    expect(() => loadPortalProfile('gas', [dir])).toThrow(/no portal profile with this id \(known: .*water/);
  });

  it('refuses a profile whose allowed host carries a scheme', () => {
    const path = write('bad-profile.json', { id: 'x', name: 'X', startUrl: 'https://x.example/', allowedHosts: ['https://x.example'], confirmation: { applicationNumberPattern: 'X', pageContains: 'done' } });
    expect(() => loadPortalProfile(path)).toThrow(/allowedHosts\.0: a lower-case hostname/);
  });
});
