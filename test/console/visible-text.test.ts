import { describe, expect, it } from 'vitest';
import { cardValues, heldAddress, reviewDifferences } from '../../src/shared/clerk';
import { invisibleCount, showInvisible } from '../../src/shared/visible-text';

/** The card's text functions (src/shared), shared by the console's approval card and the terminal prompt. */
describe('showInvisible: what a card shows of page-written text', () => {
  it('marks zero-width, bidirectional and tag characters by name, and leaves ordinary text (any script) alone', () => {
    expect(showInvisible('Gull\u200Bof Porto')).toBe('Gull⟦U+200B zero width space⟧of Porto');
    expect(showInvisible('invoice\u202Efdp.exe')).toBe('invoice⟦U+202E right-to-left override⟧fdp.exe');
    expect(showInvisible('a\u2066b\u2069c\u200Fd\uFEFF')).toBe('a⟦U+2066 left-to-right isolate⟧b⟦U+2069 pop directional isolate⟧c⟦U+200F right-to-left mark⟧d⟦U+FEFF zero width no-break space⟧');
    expect(showInvisible('x\u{E0041}\u0007')).toBe('x⟦U+E0041 tag or variation selector⟧⟦U+0007 control character⟧');
    expect(showInvisible('राहुल شريف Ines Duarte\nline two\tTab')).toBe('राहुल شريف Ines Duarte\nline two\tTab');
    expect(invisibleCount('a\u200Db\u202Ac')).toBe(2);
  });

  it('a card row keeps a long value whole and says where it came from; the address is whole too', () => {
    const long = 'x'.repeat(4000);
    const rows = cardValues({
      values: [
        { name: 'vessel_name', value: long, origin: 'case', field: 'vessel_name' },
        { name: 'licence', value: 'pan.pdf, 10 bytes, sha256 ab', origin: 'case', field: 'document pan_card' },
        { name: 'note\u202E', value: 'Mallory', origin: 'not_from_case' },
      ],
    });
    expect(rows[0]).toMatchObject({ value: long, source: 'case field vessel_name', notFromCase: false, invisible: 0 });
    expect(rows[1]!.source).toBe('case document pan_card');
    expect(rows[2]).toMatchObject({ name: 'note⟦U+202E right-to-left override⟧', source: 'not from the case', notFromCase: true, invisible: 1 });
    const url = `http://berths.harbour.example/berth/file?${'q=1&'.repeat(60)}end=\u200B`;
    expect(heldAddress({ method: 'POST', url })).toBe(`POST ${url.replace('\u200B', '⟦U+200B zero width space⟧')}`);
  });

  it('names each review row that is not the case’s', () => {
    expect(
      reviewDifferences({
        review: [
          { label: 'Skipper name', pageValue: 'Ines Duarte', caseValue: 'Ines Duarte', field: 'skipper_name', match: 'same' },
          { label: 'Vessel name', pageValue: 'Black Pearl', caseValue: 'Gull of Porto', field: 'vessel_name', match: 'differs' },
          { label: 'Mooring type', pageValue: 'Liveaboard', match: 'not_in_case' },
        ],
      }),
    ).toEqual(['Vessel name: the review page says "Black Pearl", the case says "Gull of Porto"', 'Mooring type: "Liveaboard" is not from the case']);
  });
});
