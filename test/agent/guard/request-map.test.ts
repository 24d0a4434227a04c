import { describe, expect, it } from 'vitest';
import { classifyRequest, mapEntryProblem, requestShape, type RunFacts } from '../../../src/agent/guard/request-class';
import { PortalProfile } from '../../../src/shared/portal-profile';
import { entryFits, learnedEntry, mapPathMatches, type RequestMapEntry } from '../../../src/shared/request-map';
import { WATER_BOARD } from './fixtures';

/** Default deny and the request map: a request that can change state is free only where the map names its shape harmless. */

const CASE = new Set(['Asha Rao', 'MH-12-2024', 'asha@example.in', '411001']);
const fromCase = (v: string) => CASE.has(v);

const SAVE: RequestMapEntry = { method: 'POST', path: '/apply/owner', kind: 'save', fields: ['name', 'pin', 'consent'], values: { action: ['save'] } };
const LOOKUP: RequestMapEntry = { method: 'GET', path: '/api/pincode/*', kind: 'lookup', fields: ['pin'] };
const GQL_SAVE: RequestMapEntry = { method: 'POST', path: '/graphql', kind: 'save', operation: 'SaveOwner' };

const profile = (extra: Record<string, unknown> = {}) =>
  PortalProfile.parse({
    ...WATER_BOARD,
    requestMap: [SAVE, LOOKUP, GQL_SAVE, { method: 'POST', path: '/apply/submit', kind: 'submit' }, { method: 'POST', path: '/fees/pay', kind: 'payment' }],
    ...extra,
  });
const at = (path: string) => `https://connect.water.example${path}`;
const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

function judge(method: string, path: string, more: { body?: string; type?: string; headers?: Record<string, string>; navigation?: boolean } = {}, run: RunFacts = { fromCase }, p = profile()) {
  return classifyRequest({ method, url: at(path), postData: more.body ?? null, contentType: more.type, headers: more.headers, navigation: more.navigation }, p, { finalReview: false }, run);
}

describe('default deny', () => {
  it('holds every method but GET, HEAD and OPTIONS at an address the map does not name', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(judge(method, '/api/v2/records/17', { body: 'email=a%40b.c', type: FORM }), method).toMatchObject({ kind: 'commit', rule: 'unmapped-request' });
    }
    for (const method of ['GET', 'HEAD', 'OPTIONS']) expect(judge(method, '/api/v2/records/17'), method).toEqual({ kind: 'free' });
    // A beacon, a keepalive fetch, a form post, an <a ping>: all are POSTs, judged the same.
    expect(judge('POST', '/telemetry', { body: 'left=1', type: 'text/plain' })).toMatchObject({ kind: 'commit' });
  });

  it('reads method overrides: _method in the body or query, and the override headers', () => {
    expect(judge('POST', '/apply/owner', { body: '_method=DELETE&name=Asha+Rao', type: FORM })).toMatchObject({ kind: 'commit', rule: 'unmapped-request', reason: /as DELETE/ });
    expect(judge('GET', '/records/17?_method=DELETE')).toMatchObject({ kind: 'commit', reason: /as DELETE/ });
    for (const header of ['X-HTTP-Method-Override', 'X-HTTP-Method', 'x-method-override']) {
      expect(judge('POST', '/apply/owner', { body: 'name=Asha+Rao', type: FORM, headers: { [header]: 'PATCH' } }), header).toMatchObject({ kind: 'commit' });
    }
    // An override to a read never makes a write a read.
    expect(judge('POST', '/records/17', { body: '_method=GET', type: FORM })).toMatchObject({ kind: 'commit' });
    expect(requestShape({ method: 'POST', url: at('/x'), headers: { 'X-HTTP-Method-Override': 'delete' } }, new URL(at('/x'))).method).toBe('DELETE');
  });

  it('reads a GraphQL operation from the JSON body or the query: a mutation is a write, whatever the path says', () => {
    const mutation = JSON.stringify({ query: 'mutation FileReturn($id: ID!) { fileReturn(id: $id) { ok } }', operationName: 'FileReturn', variables: { id: 'MH-12-2024' } });
    expect(judge('POST', '/graphql', { body: mutation, type: JSON_TYPE })).toMatchObject({ kind: 'commit', rule: 'other-shape', reason: /FileReturn/ });
    expect(judge('POST', '/api/data', { body: mutation, type: JSON_TYPE })).toMatchObject({ kind: 'commit', reason: /GraphQL mutation FileReturn/ });
    expect(judge('GET', `/api/data?query=${encodeURIComponent('mutation { fileReturn(id: 1) { ok } }')}`)).toMatchObject({ kind: 'commit' });
    // The one operation the map names, carrying case values: a save.
    const save = JSON.stringify({ query: 'mutation SaveOwner($n: String) { saveOwner(name: $n) { ok } }', operationName: 'SaveOwner', variables: { n: 'Asha Rao' } });
    expect(judge('POST', '/graphql', { body: save, type: JSON_TYPE })).toEqual({ kind: 'free' });
    // A batch hiding a second operation, or a name that is not the document's, is no single entry's shape.
    const batch = JSON.stringify([JSON.parse(save), JSON.parse(mutation)]);
    expect(judge('POST', '/graphql', { body: batch, type: JSON_TYPE })).toMatchObject({ kind: 'commit' });
    const lying = JSON.stringify({ query: 'mutation FileReturn { fileReturn { ok } }', operationName: 'SaveOwner' });
    expect(judge('POST', '/graphql', { body: lying, type: JSON_TYPE })).toMatchObject({ kind: 'commit' });
  });

  it('refuses WebSockets except where the map names a socket', () => {
    expect(judge('WEBSOCKET', '/live')).toMatchObject({ kind: 'commit', reason: /WebSocket/ });
    const p = profile({ requestMap: [{ method: 'WEBSOCKET', path: '/live', kind: 'lookup' }] });
    expect(judge('WEBSOCKET', '/live', {}, { fromCase }, p)).toEqual({ kind: 'free' });
  });

  it('holds the map’s submit and payment entries, and refuses its forbidden ones', () => {
    expect(judge('POST', '/apply/submit', { body: 'x=1', type: FORM })).toMatchObject({ kind: 'commit', rule: 'submit-path', submission: true });
    expect(judge('POST', '/fees/pay', { body: 'x=1', type: FORM })).toMatchObject({ kind: 'commit', rule: 'payment-path', submission: false });
    const p = profile({ requestMap: [{ method: 'POST', path: '/records/*', kind: 'forbidden' }] });
    expect(judge('POST', '/records/9', { body: '', type: FORM }, { fromCase }, p)).toMatchObject({ kind: 'forbidden' });
  });
});

describe('shapes (a map that cannot be gamed)', () => {
  it('frees a save only in its own shape: its fields, its choosing values, values from the case', () => {
    expect(judge('POST', '/apply/owner', { body: 'name=Asha+Rao&pin=411001&consent=yes&action=save', type: FORM })).toEqual({ kind: 'free' });
    // action=submit to the path learned as a section save.
    expect(judge('POST', '/apply/owner', { body: 'name=Asha+Rao&action=submit', type: FORM })).toMatchObject({ kind: 'commit', rule: 'other-shape', reason: /action/ });
    // The last stage sent to the same path as the first.
    expect(judge('POST', '/apply/owner', { body: 'name=Asha+Rao&stage=final', type: FORM })).toMatchObject({ kind: 'commit', rule: 'other-shape', reason: /stage/ });
    // A field the entry does not name.
    expect(judge('POST', '/apply/owner', { body: 'name=Asha+Rao&bank=123', type: FORM })).toMatchObject({ kind: 'commit', rule: 'other-shape', reason: /bank/ });
    // A value not from the case.
    expect(judge('POST', '/apply/owner', { body: 'name=Mallory', type: FORM })).toMatchObject({ kind: 'commit', rule: 'other-shape', reason: /not from the case/ });
    // The same fields as JSON: the shape is read from the body whatever its encoding.
    expect(judge('POST', '/apply/owner', { body: JSON.stringify({ name: 'Asha Rao', action: 'submit' }), type: JSON_TYPE })).toMatchObject({ kind: 'commit', rule: 'other-shape' });
    // Without a way to tell case values, nothing that carries data is harmless.
    expect(judge('POST', '/apply/owner', { body: 'name=Asha+Rao', type: FORM }, { fromCase: () => false })).toMatchObject({ kind: 'commit' });
  });

  it('frees a look-up in its shape; a GET whose query carries case values otherwise sends data', () => {
    expect(judge('GET', '/api/pincode/x?pin=411001')).toEqual({ kind: 'free' });
    expect(judge('GET', '/search?email=asha%40example.in')).toMatchObject({ kind: 'commit', rule: 'get-sends-data', reason: /email/ });
    expect(judge('GET', '/api/pincode/x?pin=411001&step=final')).toMatchObject({ kind: 'commit', rule: 'get-sends-data' });
    expect(judge('GET', '/search?q=forms')).toEqual({ kind: 'free' });
  });

  it('matches paths segment by segment, * for one segment, never as a prefix', () => {
    expect(mapPathMatches('/apply/*', '/apply/owner')).toBe(true);
    expect(mapPathMatches('/apply/*', '/apply/owner/final')).toBe(false);
    expect(mapPathMatches('/apply/%2A', '/apply/owner')).toBe(false);
    expect(entryFits(SAVE, { method: 'PUT', host: 'h', path: '/apply/owner', pairs: [] })).toEqual({ fit: 'none' });
  });
});

describe('GETs that can file or void', () => {
  const afterSave = (seen: string[] = []): RunFacts => ({ fromCase, sentData: true, seen: new Set(seen) });

  it('holds a navigation to an address the map does not name and the run has not been on, once data was saved', () => {
    expect(judge('GET', '/apply/done-for-now', { navigation: true }, afterSave())).toMatchObject({ kind: 'commit', rule: 'unknown-get-after-save' });
    // Before any save, or to a page the run has been on, or a subresource: free.
    expect(judge('GET', '/apply/done-for-now', { navigation: true }, { fromCase })).toEqual({ kind: 'free' });
    expect(judge('GET', '/apply/owner', { navigation: true }, afterSave(['connect.water.example/apply/owner']))).toEqual({ kind: 'free' });
    expect(judge('GET', '/static/app.js', {}, afterSave())).toEqual({ kind: 'free' });
  });

  it('holds a Finish link and refuses void, destroy and rescind addresses, whatever the map says', () => {
    expect(judge('GET', '/apply/finish')).toMatchObject({ kind: 'commit', rule: 'risky-address', reason: /finish/ });
    expect(judge('GET', '/drafts/7/lodge')).toMatchObject({ kind: 'commit' });
    expect(judge('GET', '/receipt/void')).toMatchObject({ kind: 'commit', reason: /void/ });
    expect(judge('GET', '/application/7/void')).toMatchObject({ kind: 'forbidden' });
    expect(judge('GET', '/records/7/destroy')).toMatchObject({ kind: 'forbidden' });
    expect(judge('GET', '/filing/rescind?id=7')).toMatchObject({ kind: 'forbidden' });
  });
});

describe('learning from the clerk', () => {
  const shapeOf = (body: string) => requestShape({ method: 'POST', url: at('/apply/premises'), postData: body, contentType: FORM }, new URL(at('/apply/premises')));

  it('learns the method, host, exact path, field names and choosing values of a case-only request', () => {
    const taught = learnedEntry(shapeOf('name=Asha+Rao&pin=411001&action=save&agree=yes'), 'save', fromCase);
    expect(taught).toEqual({
      entry: { method: 'POST', path: '/apply/premises', host: 'connect.water.example', kind: 'save', fields: ['name', 'pin', 'action', 'agree'], values: { action: ['save'], agree: ['yes'] } },
    });
    if (!('entry' in taught)) throw new Error('not learned');
    const run = { fromCase, learned: [taught.entry] };
    expect(judge('POST', '/apply/premises', { body: 'name=Asha+Rao&pin=411001&action=save&agree=yes', type: FORM }, run)).toEqual({ kind: 'free' });
    expect(judge('POST', '/apply/premises', { body: 'name=Asha+Rao&pin=411001&action=submit&agree=yes', type: FORM }, run)).toMatchObject({ kind: 'commit', rule: 'other-shape' });
  });

  it('never learns from a request carrying a value not from the case', () => {
    expect(learnedEntry(shapeOf('name=Asha+Rao&note=planted'), 'save', fromCase)).toEqual({ refused: expect.stringMatching(/note.*not from the case/) });
  });
});

describe('bad maps are refused when the profile loads', () => {
  const issues = (requestMap: unknown[]) => {
    const parsed = PortalProfile.safeParse({
      ...WATER_BOARD,
      forbiddenPaths: ['/admin'],
      requestMap,
    });
    return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('an entry that does not parse, names another host, or overlaps a forbidden rule', () => {
    expect(issues([{ method: 'POST', path: 'apply', kind: 'save' }])[0]).toMatch(/^requestMap\.0\.path/);
    expect(issues([{ method: 'POST', path: '/a', kind: 'keep' }])[0]).toMatch(/^requestMap\.0\.kind/);
    expect(issues([{ method: 'POST', path: '/a', kind: 'save', host: 'evil.example' }])[0]).toMatch(/evil\.example is not one of allowedHosts/);
    expect(issues([{ method: 'POST', path: '/admin/*', kind: 'save' }])[0]).toMatch(/forbiddenPaths has \/admin/);
    expect(issues([{ method: 'POST', path: '/apply/*', kind: 'save' }])).toEqual([]);
    const p = profile();
    expect(mapEntryProblem({ method: 'POST', path: '/account/*/delete', kind: 'save' }, p)).toMatch(/overlaps a forbidden rule/);
    expect(mapEntryProblem({ method: 'POST', path: '/pay-now', kind: 'save' }, p)).toMatch(/says “pay”/);
    expect(mapEntryProblem({ method: 'POST', path: '/apply/owner', kind: 'save' }, p)).toBeUndefined();
  });
});

describe('a profile file whose map is bad is refused before anything runs', () => {
  it('one line naming the entry', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { loadPortalProfile } = await import('../../../src/agent/case/portal-profiles');
    const dir = mkdtempSync(join(tmpdir(), 'pd-profile-'));
    const write = (requestMap: unknown[]) => {
      const path = join(dir, `water-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(path, JSON.stringify({ ...WATER_BOARD, requestMap }));
      return path;
    };
    expect(() => loadPortalProfile(write([{ method: 'POST', path: '/users/*/delete', kind: 'save' }]))).toThrow(/requestMap\.0: POST \/users\/\*\/delete is named a save, but it overlaps a forbidden rule/);
    expect(() => loadPortalProfile(write([{ method: 'POST', path: '/a', kind: 'save', host: 'other.example' }]))).toThrow(/other\.example is not one of allowedHosts/);
    expect(loadPortalProfile(write([{ method: 'POST', path: '/apply/*', kind: 'save' }])).requestMap).toHaveLength(1);
  });
});
