import { describe, expect, it } from 'vitest';
import { DEFAULT_RISKY_WORDS } from '../../../../src/shared/portal-profile';
import { riskyWordIn, riskyWordsIn } from '../../../../src/agent/guard/rules/risky-words';

const words = DEFAULT_RISKY_WORDS;

describe('risky words', () => {
  it.each([
    ['Submit application', 'submit'],
    ['SUBMIT', 'submit'],
    ['Re-submit', 'submit'],
    ['submit_form', 'submit'],
    ['Pay now', 'pay'],
    ['Make payment', 'payment'],
    ['Confirm & continue', 'confirm'],
    ['Delete draft', 'delete'],
    ['Remove branch', 'remove'],
    ['Sign in', 'sign'],
    ['Download receipt', 'download'],
    ['I declare', 'declare'],
    ['Cancel application', 'cancel application'],
    ['Cancel   Application', 'cancel application'],
    ['Cancel-application', 'cancel application'],
    ['Withdraw', 'withdraw'],
    ['ＳＵＢＭＩＴ', 'submit'],
    ['Sub\u200Bmit', 'submit'],
    ['Sub\u00ADmit', 'submit'],
    ['Ѕubmit', 'submit'],
    ['Раy now', 'pay'],
  ])('finds a risky word in %j', (name, word) => {
    expect(riskyWordIn(name, words)).toBe(word);
  });

  it.each([
    'Submitted applications',
    'Resubmission history',
    'Payee name',
    'Repay schedule',
    'Confirmation number',
    'Signature',
    'Designation',
    'Cancel',
    'Save and continue',
    'Declared turnover',
    'Payé',
    '',
  ])('finds no risky word in %j', (name) => {
    expect(riskyWordIn(name, words)).toBeUndefined();
  });

  it('lists every risky word in list order and takes words from the profile as written', () => {
    expect(riskyWordsIn('Confirm and pay', words)).toEqual(['pay', 'confirm']);
    expect(riskyWordIn('Lodge return', ['lodge'])).toBe('lodge');
    expect(riskyWordIn('a.b (c)', ['a.b (c)'])).toBe('a.b (c)');
    expect(riskyWordIn('anything', ['...'])).toBeUndefined();
  });
});
