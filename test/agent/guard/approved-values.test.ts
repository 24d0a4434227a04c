import { describe, expect, it } from 'vitest';
import { carriedValues } from '../../../src/agent/guard/request-values';
import { sentByControl, valueNotApproved, type ControlSubmission } from '../../../src/shared/control-submission';

/** What an approved control sent when the clerk was asked, against what its request carries. */
const form = (entries: Extract<ControlSubmission, { kind: 'form' }>['entries'], method = 'POST', url = 'https://p.example/apply/submit'): ControlSubmission => ({
  kind: 'form',
  url,
  method,
  enctype: 'application/x-www-form-urlencoded',
  entries,
});
const post = (url: string, body: string) => carriedValues(url, body, 'application/x-www-form-urlencoded');

describe('valueNotApproved', () => {
  const approved = form([
    { name: 'full_name', value: 'Ravi Kumar' },
    { name: 'plot', value: 'Plot 14' },
  ]);

  it('passes the same pairs in any order, and line breaks as a form sends them (CRLF)', () => {
    expect(valueNotApproved(approved, post('https://p.example/apply/submit', 'plot=Plot+14&full_name=Ravi+Kumar'))).toBeNull();
    const address = form([{ name: 'address', value: 'Line 1\nLine 2' }]);
    expect(valueNotApproved(address, post('https://p.example/apply/submit', 'address=Line+1%0D%0ALine+2'))).toBeNull();
  });

  it('names a changed value, an added one, a dropped one and a repeated one', () => {
    expect(valueNotApproved(approved, post('https://p.example/apply/submit', 'full_name=Ravi+Kumar&plot=Plot+99'))).toBe('"plot" is "Plot 99"; you were asked about "Plot 14"');
    expect(valueNotApproved(approved, post('https://p.example/apply/submit', 'full_name=Ravi+Kumar&plot=Plot+14&bank=999'))).toBe('"bank" is "999", which the control did not send when you were asked');
    expect(valueNotApproved(approved, post('https://p.example/apply/submit', 'full_name=Ravi+Kumar'))).toBe('"plot" was dropped from what you were asked about');
    expect(valueNotApproved(approved, post('https://p.example/apply/submit', 'full_name=Ravi+Kumar&plot=Plot+14&plot=Plot+14'))).toMatch(/^"plot" is "Plot 14"/);
  });

  it('reads a GET form’s entries as the query that replaces its address’s own, and a POST’s address query as sent', () => {
    const get = form([{ name: 'q', value: 'a' }], 'GET', 'https://p.example/search?old=1');
    expect(valueNotApproved(get, carriedValues('https://p.example/search?q=a', null, undefined))).toBeNull();
    const withQuery = form([], 'POST', 'https://p.example/apply/submit?draft=7');
    expect(valueNotApproved(withQuery, post('https://p.example/apply/submit?draft=7', ''))).toBeNull();
    expect(valueNotApproved(withQuery, post('https://p.example/apply/submit?draft=8', ''))).toBe('"draft" is "8"; you were asked about "7"');
  });

  it('reads a link as its query, and a file as its name and size', () => {
    expect(valueNotApproved({ kind: 'link', url: 'https://p.example/confirm?id=1' }, carriedValues('https://p.example/confirm?id=1', null, undefined))).toBeNull();
    expect(valueNotApproved({ kind: 'link', url: 'https://p.example/confirm?id=1' }, carriedValues('https://p.example/confirm?id=2', null, undefined))).toMatch(/^"id" is "2"/);
    const upload = form([{ name: 'proof', file: 'pan.pdf', bytes: 4 }]);
    const body = (name: string, bytes: string) =>
      new TextEncoder().encode(`--b\r\nContent-Disposition: form-data; name="proof"; filename="${name}"\r\nContent-Type: application/pdf\r\n\r\n${bytes}\r\n--b--\r\n`);
    const sent = (name: string, bytes: string) => carriedValues('https://p.example/apply/submit', null, 'multipart/form-data; boundary=b', body(name, bytes));
    expect(valueNotApproved(upload, sent('pan.pdf', 'abcd'))).toBeNull();
    expect(valueNotApproved(upload, sent('pan.pdf', 'abcde'))).toBe('"proof" is a file named "pan.pdf"; you were asked about another file');
    expect(valueNotApproved(upload, sent('other.pdf', 'abcd'))).toMatch(/^"proof" is a file named "other.pdf"/);
  });

  it('shows the clerk the control’s values as a request would carry them', () => {
    expect(sentByControl(form([{ name: 'proof', file: 'pan.pdf', bytes: 4 }], 'POST', 'https://p.example/s?x=1'))).toEqual([
      { name: 'x', value: '1' },
      { name: 'proof', value: 'pan.pdf, 4 bytes', file: { file: 'pan.pdf', bytes: 4 } },
    ]);
    expect(sentByControl({ kind: 'link', url: 'not an address' })).toBeNull();
  });
});
