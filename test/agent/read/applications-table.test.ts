import { describe, expect, it } from 'vitest';
import { applicationRows } from '../../../src/agent/read/applications-table';

/** The rules extractor on the two lab layouts' applications lists (their markup, as served). */
const PATTERN = '\\b(SHP-\\d{4}-\\d{6})\\b';

describe('applicationRows', () => {
  it('reads number, status, reference and date by the original layout\'s headers', () => {
    const html = `<table class="list"><caption class="vh">Your applications</caption>
<thead><tr><th scope="col">Application number</th><th scope="col">Reference</th><th scope="col">Submitted</th><th scope="col">Status</th></tr></thead>
<tbody><tr><td><a href="/confirmation/SHP-2025-000123">SHP-2025-000123</a></td><td>TN/SHP/2019/004512</td><td>2025-02-11</td><td>Approved</td></tr>
<tr><td><a href="/confirmation/SHP-2025-000877">SHP-2025-000877</a></td><td>TN/SHP/2021/007730</td><td>2025-09-03</td><td>Returned for correction</td></tr></tbody></table>`;
    expect(applicationRows(html, PATTERN)).toEqual([
      { applicationNumber: 'SHP-2025-000123', status: 'Approved', reference: 'TN/SHP/2019/004512', date: '2025-02-11' },
      { applicationNumber: 'SHP-2025-000877', status: 'Returned for correction', reference: 'TN/SHP/2021/007730', date: '2025-09-03' },
    ]);
  });

  it('reads the redesigned layout (Ref. no., Client reference, Date) and skips a draft row without a number', () => {
    const html = `<table class="data"><thead><tr><th>Ref. no.</th><th>Client reference</th><th>Date</th><th>Status</th></tr></thead>
<tbody><tr><td><a href="/confirmation/SHP-2025-000877">SHP-2025-000877</a></td><td>TN/SHP/2021/007730</td><td>2025-09-03</td><td>Returned &amp; held</td></tr>
<tr><td>D-4411</td><td></td><td>2026-12-01</td><td>Draft (<a href="/apply/continue">Continue your saved draft</a>)</td></tr></tbody></table>`;
    expect(applicationRows(html, PATTERN)).toEqual([{ applicationNumber: 'SHP-2025-000877', status: 'Returned & held', reference: 'TN/SHP/2021/007730', date: '2025-09-03' }]);
  });

  it('answers no status where no column says Status', () => {
    const html = '<table><tr><th>Application number</th><th>Reference</th></tr><tr><td>SHP-2025-000123</td><td>X</td></tr></table>';
    expect(applicationRows(html, PATTERN)).toEqual([{ applicationNumber: 'SHP-2025-000123', status: null, reference: 'X', date: null }]);
  });
});
