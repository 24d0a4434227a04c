import { describe, expect, it } from 'vitest';
import { bindLabProfile, PORTAL_IDS, PORTALS, type PortalId } from '../../lab/index';
import { applySameAs, copiedPairs, sameAsRule } from '../../lab/forms/same-as';
import { labelOf, recordedFields } from '../../lab/forms/spec';
import { validateApplication } from '../../lab/forms/validate';
import { PortalProfile } from '../../src/shared/portal-profile';
import { loadCases, loadProfile, normaliseName } from './support/resources';

/** The shipped case files and profiles parse and fit the portals they are for. */

const cases = loadCases();

describe('portal profiles', () => {
  for (const id of PORTAL_IDS) {
    it(`${id}.json is a valid profile that fits the lab`, () => {
      const profile = loadProfile(id);
      expect(profile.id).toBe(id);
      expect(profile.allowHttp).toBe(true);
      expect(profile.finalReviewPatterns).toContain('check your answers');
      expect(new RegExp(profile.confirmation.applicationNumberPattern).test(`${PORTALS[id].numberPrefix}-2026-000123`)).toBe(true);
      expect(PortalProfile.parse(bindLabProfile(profile, 41234)).startUrl).toBe(`http://${id}.portal.example:41234/`);
    });
  }
});

describe('"same as" checkboxes', () => {
  const address = (prefix: string, parts: string[]) => parts.map((p) => `${prefix}_${p}`).sort();
  const expected: Record<PortalId, [string, string[]]> = {
    shops: ['correspondence_same_as_business', address('correspondence', ['address_line_1', 'address_line_2', 'city', 'state', 'pincode'])],
    power: ['billing_same_as_supply', address('billing', ['address_line_1', 'address_line_2', 'city', 'pincode'])],
    tax: ['communication_same_as_establishment', address('communication', ['address_line_1', 'address_line_2', 'city', 'pincode'])],
  };
  for (const id of PORTAL_IDS) {
    it(`${id}: the checkbox copies exactly the address fields`, () => {
      const [key, targets] = expected[id];
      const keys = PORTALS[id].fields.map((f) => f.key);
      expect(keys.filter((k) => sameAsRule(k))).toEqual([key]);
      expect(copiedPairs(sameAsRule(key)!, keys).map((p) => p.target).sort()).toEqual(targets);
    });
  }
});

describe('case files', () => {
  it('cover every portal at least four times, with the awkward cases the tests need', () => {
    expect(cases.length).toBeGreaterThanOrEqual(12);
    for (const id of PORTAL_IDS) expect(cases.filter((c) => c.portal === id).length).toBeGreaterThanOrEqual(4);
    const values = cases.flatMap((c) => Object.values(c.fields)).filter((v): v is string => typeof v === 'string');
    expect(values.some((v) => /[\u0900-\u097F]/.test(v))).toBe(true); // Devanagari
    expect(values.some((v) => /[^ -~]/.test(v) && /[A-Za-z]/.test(v))).toBe(true); // accented Latin
    const sameAs = cases.flatMap((c) => Object.entries(c.fields).filter(([k]) => sameAsRule(k)).map(([, v]) => v));
    expect(sameAs).toContain(true);
    expect(sameAs).toContain(false);
    const atMax = cases.some((c) =>
      PORTALS[c.portal as PortalId].fields.some((f) => f.maxLength !== undefined && String(c.fields[f.key] ?? '').length === f.maxLength),
    );
    expect(atMax).toBe(true);
    const optionalLeftOut = cases.some((c) => PORTALS[c.portal as PortalId].fields.some((f) => !f.required && f.kind !== 'checkbox' && f.kind !== 'declaration' && !(f.key in c.fields)));
    expect(optionalLeftOut).toBe(true);
  });

  for (const c of cases) {
    describe(c.caseId, () => {
      const portal = PORTALS[c.portal as PortalId];

      it('names a lab portal, its task and only its fields', () => {
        expect(portal).toBeDefined();
        expect(c.task).toBe(portal.task);
        const keys = recordedFields(portal).map((f) => f.key);
        for (const key of Object.keys(c.fields)) expect(keys).toContain(key);
      });

      it('passes the portal’s own validation on both layouts', () => {
        const fields = applySameAs({ ...c.fields }, portal.fields.map((f) => f.key));
        for (const f of portal.fields) if (f.kind === 'declaration') fields[f.key] = true;
        expect(validateApplication(portal, 'original', fields)).toEqual([]);
        expect(validateApplication(portal, 'redesigned', fields)).toEqual([]);
      });

      it('lets a label-matching filler find every field on both layouts', () => {
        for (const key of Object.keys(c.fields)) {
          const field = portal.fields.find((f) => f.key === key)!;
          const names = new Set([key, ...(c.aliases[key] ?? [])].map(normaliseName));
          expect(names, `${key} (original)`).toContain(normaliseName(labelOf(field, 'original')));
          expect(names, `${key} (redesigned)`).toContain(normaliseName(labelOf(field, 'redesigned')));
        }
        for (const declaration of portal.fields.filter((f) => f.kind === 'declaration')) {
          for (const layout of ['original', 'redesigned'] as const) {
            const label = labelOf(declaration, layout).toLowerCase();
            expect(c.declarations.some((d) => label.includes(d.toLowerCase())), `${declaration.key} (${layout})`).toBe(true);
          }
        }
      });
    });
  }
});
