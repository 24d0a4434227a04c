import { describe, expect, it } from 'vitest';
import { groupNamedIn, ordinalOf, parseGroupPath } from '../../../src/shared/case-groups';

describe('case groups: paths and the ordinals pages give people', () => {
  it('reads an indexed path and refuses what is not one', () => {
    expect(parseGroupPath('partners[1].date_of_birth')).toEqual({ group: 'partners', index: 1, member: 'date_of_birth' });
    expect(parseGroupPath('business_name')).toBeNull();
    expect(parseGroupPath('partners[01].x')).toBeNull();
    expect(parseGroupPath('partners[1]')).toBeNull();
  });

  it.each<[string, number | null]>([
    ['Partner 2', 2],
    ['Second applicant', 2],
    ['Co-applicant 2', 2],
    ['2nd director', 2],
    ['Partner two', 2],
    ['Applicant (3)', 3],
    ['Details of partner 1', 1],
    ['Partner 2 of 3', 2],
    ['Step 2 of 4: Applicants', null],
    ['Page 3', null],
    ['Address line 2', null],
    ['Section 4', null],
    ['Your details', null],
  ])('%s → %s', (label, ordinal) => {
    expect(ordinalOf(label)).toBe(ordinal);
  });

  it('names the case group a block label speaks of', () => {
    expect(groupNamedIn('Partner 2', ['partners', 'directors'])).toBe('partners');
    expect(groupNamedIn('Second director', ['partners', 'directors'])).toBe('directors');
    expect(groupNamedIn('Co-applicant 2', ['co_applicants'])).toBe('co_applicants');
    expect(groupNamedIn('Applicant 2', ['partners'])).toBeUndefined();
  });
});
