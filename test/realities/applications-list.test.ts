import { describe, expect, it } from 'vitest';
import { findApplicationInList, listedApplications } from '../../src/agent/portal/applications-list';

/** The applications list as the lab's original layout prints it (number, reference, date, status). */
function list(rows: [string, string, string][], draft?: string): string {
  const body = rows.map(([n, ref, date]) => `<tr><td><a href="/confirmation/${n}">${n}</a></td><td>${ref}</td><td>${date}</td><td>Submitted</td></tr>`).join('');
  return `<h1>Your applications</h1><table class="list"><thead><tr><th>Application number</th><th>Reference</th><th>Date</th><th>Status</th></tr></thead><tbody>${body}</tbody></table>${
    draft ? `<h2>Saved draft</h2><p>Draft ID ${draft}. <a href="/apply/continue">Continue your saved draft</a></p>` : ''
  }`;
}

const SHOPS = { numberPattern: 'SHP-\\d{4}-\\d{6}', caseId: 'shops-renewal-anand-bakery', caseValues: ['TN/SHP/2022/009847', 'Anand Bakery and Café', 'Chennai', '12', '2026-12-02'] };
const TAX = { numberPattern: 'PTX-\\d{4}-\\d{6}', caseId: 'tax-aug', caseValues: ['27553344556P', 'August 2026', 'Original', '2026-09-10'] };

describe('findApplicationInList: is THIS case on the portal’s applications list?', () => {
  it('finds the row whose reference is the case’s own value', () => {
    const html = list([
      ['SHP-2026-000001', 'MH/SHP/2021/000111', '2026-12-02'],
      ['SHP-2026-000002', 'TN/SHP/2022/009847', '2026-12-02'],
    ]);
    expect(findApplicationInList(html, SHOPS)).toEqual({ applicationNumber: 'SHP-2026-000002', matchedBy: 'reference "TN/SHP/2022/009847"' });
  });

  it('needs every word of the reference: last month’s return of the same employer is not this one', () => {
    const html = list([['PTX-2026-000007', '27553344556P / July 2026', '2026-08-11']]);
    expect(findApplicationInList(html, TAX)).toBeUndefined();
    const withThis = list([
      ['PTX-2026-000007', '27553344556P / July 2026', '2026-08-11'],
      ['PTX-2026-000009', '27553344556P / August 2026', '2026-09-12'],
    ]);
    expect(findApplicationInList(withThis, TAX)?.applicationNumber).toBe('PTX-2026-000009');
  });

  it('an application dated before the first submit attempt is an older one', () => {
    const html = list([['SHP-2025-000004', 'TN/SHP/2022/009847', '2025-11-30']]);
    expect(findApplicationInList(html, { ...SHOPS, notBefore: '2026-12-01' })).toBeUndefined();
    expect(findApplicationInList(html, SHOPS)?.applicationNumber).toBe('SHP-2025-000004');
  });

  it('a plain word or a date is no reference, and a saved draft after the table never lends its id to a row', () => {
    const html = list([['SHP-2026-000003', 'Chennai', '2026-12-02']], 'D-1234567');
    expect(findApplicationInList(html, { ...SHOPS, draftId: 'D-1234567' })).toBeUndefined();
  });

  it('a row that shows the draft id or the case id is this case’s', () => {
    const html = `<ul><li>SHP-2026-000010 — draft D-7654321 — submitted</li><li>SHP-2026-000011 — shops-renewal-anand-bakery</li></ul>`;
    expect(findApplicationInList(html, { ...SHOPS, draftId: 'D-7654321' })).toEqual({ applicationNumber: 'SHP-2026-000010', matchedBy: 'draft id D-7654321' });
    expect(findApplicationInList(html, SHOPS)).toEqual({ applicationNumber: 'SHP-2026-000011', matchedBy: 'case id shops-renewal-anand-bakery' });
  });

  it('reads escaped HTML as text', () => {
    const html = list([['SHP-2026-000012', 'A&amp;B/SHP/2020/77 &#47; Block C', '2026-12-02']]);
    expect(findApplicationInList(html, { ...SHOPS, caseValues: ['A&B/SHP/2020/77', 'Block C'] })?.applicationNumber).toBe('SHP-2026-000012');
  });
});

describe('listedApplications: every application the list shows since the first attempt', () => {
  it('ties the rows it can to this case, tells another case\'s reference from a row of a number only, drops older ones, and shows a number once', () => {
    const html = list([
      ['SHP-2026-000002', 'TN/SHP/2022/009847', '2026-12-02'],
      ['SHP-2026-000001', 'MH/SHP/2021/000111', '2026-12-02'],
      ['SHP-2025-000004', 'TN/SHP/2022/009847', '2025-11-30'],
      ['SHP-2026-000002', 'TN/SHP/2022/009847', '2026-12-02'],
    ]);
    expect(listedApplications(html, { ...SHOPS, notBefore: '2026-12-01' })).toEqual([
      { applicationNumber: 'SHP-2026-000002', matchedBy: 'reference "TN/SHP/2022/009847"' },
      { applicationNumber: 'SHP-2026-000001' },
    ]);
    // A list of numbers only (the permits portal's "My applications"): nothing ties a row to a case.
    expect(listedApplications('<ul><li>PRM-2026-100001</li></ul>', { ...SHOPS, numberPattern: 'PRM-\\d{4}-\\d{6}' })).toEqual([{ applicationNumber: 'PRM-2026-100001', untied: true }]);
    expect(findApplicationInList('<ul><li>PRM-2026-100001</li></ul>', { ...SHOPS, numberPattern: 'PRM-\\d{4}-\\d{6}' })).toBeUndefined();
    // Dates, times and amounts in other spellings are no reference: such a row stays untied (it may be this case's).
    const PRM = { ...SHOPS, numberPattern: 'PRM-\\d{4}-\\d{6}' };
    for (const extra of ['07/12/2026', '7.12.2026', '12-Dec-2026 10:42', '2026-12-07T10:42:00Z', 'Rs. 1,500.00', '₹1500', '1500.00']) {
      expect(listedApplications(`<table><tr><td>PRM-2026-100001</td><td>${extra}</td><td>Submitted</td></tr></table>`, PRM), extra).toEqual([{ applicationNumber: 'PRM-2026-100001', untied: true }]);
    }
    // A reference of its own makes the row another case's.
    expect(listedApplications('<table><tr><td>PRM-2026-100001</td><td>TN/SHP/2021/000111</td><td>07/12/2026</td></tr></table>', PRM)).toEqual([{ applicationNumber: 'PRM-2026-100001' }]);
  });
});
