import { createServer, type Server } from 'node:http';

/**
 * A lab-style form of our own for repeated groups (issue 30), served on loopback: register a
 * trading partnership in three pages, validated by the server the way portals do.
 * 1. "Your business": business name, a mobile number the portal refuses when written with +91 and
 *    spaces ("Enter a valid mobile number", no format named), a postcode with a "Find address"
 *    look-up (page script) listing three addresses, one of them the case's.
 * 2. "Partners": a "Partner 1" fieldset (Full name, Date of birth as DD/MM/YYYY) and "Add another
 *    partner", which adds "Partner 2" with the same boxes (page script).
 * 3. "Check your answers": per-partner rows, and "Submit application" to the confirmation page.
 * Every POST body is kept in `posted` (path and fields), so a test can say what the portal received.
 */

export const ADDRESSES: Readonly<Record<string, string[]>> = {
  '560038': ['12 Park Road, Indiranagar, Bengaluru, 560038', '14 Park Road, Indiranagar, Bengaluru, 560038', '12 Park Road, Domlur, Bengaluru, 560038'],
};

export interface Posted {
  path: string;
  form: Record<string, string>;
}

export interface PartnershipForm {
  port: number;
  posted: Posted[];
  /** Mobile numbers the portal accepts (default: 10 digits, or 11 with a leading 0). */
  mobileOk: RegExp;
  reset(): void;
  close(): Promise<void>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
const shell = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
const summary = (errors: [string, string][]) =>
  errors.length ? `<div class="error-summary" role="alert"><h2>There is a problem</h2><ul>${errors.map(([id, m]) => `<li><a href="#${id}">${m}</a></li>`).join('')}</ul></div>` : '';

function businessPage(values: Record<string, string>, errors: [string, string][]): string {
  const mobileError = errors.find(([id]) => id === 'mob');
  const addressError = errors.find(([id]) => id === 'addr');
  const found = values['postcode'] && values['address'] ? (ADDRESSES[values['postcode'].replace(/\s/g, '')] ?? []) : [];
  const options = found.map((a) => `<option value="${esc(a)}"${a === values['address'] ? ' selected' : ''}>${esc(a)}</option>`).join('');
  return shell(
    'Your business',
    `${summary(errors)}<form method="post" action="/apply">
      <label for="bn">Business name</label><input id="bn" name="business_name" value="${esc(values['business_name'] ?? '')}">
      <label for="mob">Mobile number</label><input id="mob" name="mobile" value="${esc(values['mobile'] ?? '')}"${mobileError ? ' aria-invalid="true" aria-describedby="mob-err"' : ''}>
      ${mobileError ? `<p id="mob-err" class="error">${mobileError[1]}</p>` : ''}
      <fieldset><legend>Business address</legend>
        <label for="pc">Postcode</label><input id="pc" name="postcode" value="${esc(values['postcode'] ?? '')}">
        <button type="button" id="find">Find address</button>
        <div id="results"${found.length ? '' : ' hidden'}><label for="addr">Select an address</label>
          <select id="addr" name="address"${addressError ? ' aria-invalid="true"' : ''}><option value="">${found.length || 'No'} addresses found</option>${options}</select></div>
      </fieldset>
      <button type="submit">Continue</button>
    </form>
    <script>
      const table = ${JSON.stringify(ADDRESSES)};
      document.getElementById('find').addEventListener('click', () => {
        const list = table[document.getElementById('pc').value.replace(/\\s/g, '')] || [];
        const select = document.getElementById('addr');
        select.innerHTML = '<option value="">' + list.length + ' addresses found</option>' + list.map((a) => '<option>' + a + '</option>').join('');
        document.getElementById('results').hidden = false;
      });
    </script>`,
  );
}

function partnerBlock(n: number, values: Record<string, string>): string {
  return `<fieldset class="person"><legend>Partner ${n}</legend>
    <label for="p${n}-name">Full name</label><input id="p${n}-name" name="partner${n}_name" value="${esc(values[`partner${n}_name`] ?? '')}">
    <label for="p${n}-dob">Date of birth</label><input id="p${n}-dob" name="partner${n}_dob" placeholder="DD/MM/YYYY" value="${esc(values[`partner${n}_dob`] ?? '')}">
  </fieldset>`;
}

function partnersPage(values: Record<string, string>, errors: [string, string][]): string {
  const count = Math.max(1, ...Object.keys(values).map((k) => Number(/^partner(\d+)_name$/.exec(k)?.[1] ?? 0)));
  return shell(
    'Partners',
    `${summary(errors)}<form method="post" action="/partners">
      <div id="people">${Array.from({ length: count }, (_, i) => partnerBlock(i + 1, values)).join('')}</div>
      <button type="button" id="add">Add another partner</button>
      <button type="submit">Continue</button>
    </form>
    <script>
      document.getElementById('add').addEventListener('click', () => {
        const people = document.getElementById('people');
        const n = people.querySelectorAll('fieldset').length + 1;
        const block = people.querySelector('fieldset').cloneNode(true);
        block.querySelector('legend').textContent = 'Partner ' + n;
        for (const el of block.querySelectorAll('[id],[for],[name]')) {
          for (const a of ['id', 'for', 'name']) if (el.hasAttribute(a)) el.setAttribute(a, el.getAttribute(a).replace(/\\d+/, String(n)));
          if (el.localName === 'input') el.value = '';
        }
        people.appendChild(block);
      });
    </script>`,
  );
}

function reviewPage(business: Record<string, string>, partners: Record<string, string>): string {
  const row = (label: string, value: string) => `<dt>${label}</dt><dd>${esc(value)}</dd>`;
  const people = Object.keys(partners)
    .filter((k) => /^partner\d+_name$/.test(k))
    .map((k) => Number(/\d+/.exec(k)![0]))
    .sort()
    .map((n) => `<h2>Partner ${n}</h2><dl>${row('Full name', partners[`partner${n}_name`] ?? '')}${row('Date of birth', partners[`partner${n}_dob`] ?? '')}</dl>`)
    .join('');
  return shell(
    'Check your answers',
    `<h2>Your business</h2><dl>${row('Business name', business['business_name'] ?? '')}${row('Mobile number', business['mobile'] ?? '')}${row('Address', business['address'] ?? '')}</dl>
    ${people}
    <form method="post" action="/submit"><button type="submit">Submit application</button></form>`,
  );
}

export async function startPartnershipForm(): Promise<PartnershipForm> {
  let business: Record<string, string> = {};
  let partners: Record<string, string> = {};
  const posted: Posted[] = [];
  const state: PartnershipForm = {
    port: 0,
    posted,
    mobileOk: /^0?\d{10}$/,
    reset() {
      business = {};
      partners = {};
      posted.length = 0;
      state.mobileOk = /^0?\d{10}$/;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const send = (html: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
      const redirect = (to: string) => res.writeHead(303, { location: to }).end();
      if (req.method === 'GET') {
        if (path === '/partners') return send(partnersPage(partners, []));
        if (path === '/review') return send(reviewPage(business, partners));
        return send(businessPage(business, []));
      }
      const form = Object.fromEntries(new URLSearchParams(body));
      posted.push({ path, form });
      if (path === '/apply') {
        const errors: [string, string][] = [];
        if (!state.mobileOk.test(form['mobile'] ?? '')) errors.push(['mob', 'Enter a valid mobile number']);
        const list = ADDRESSES[(form['postcode'] ?? '').replace(/\s/g, '')] ?? [];
        if (!list.includes(form['address'] ?? '')) errors.push(['addr', 'Select your address from the list']);
        if (!form['business_name']) errors.push(['bn', 'Enter the business name']);
        if (errors.length) return send(businessPage(form, errors));
        business = form;
        return redirect('/partners');
      }
      if (path === '/partners') {
        const errors: [string, string][] = [];
        for (const [k, v] of Object.entries(form)) {
          if (/_name$/.test(k) && !v) errors.push([k, 'Enter the partner’s full name']);
          if (/_dob$/.test(k) && !/^\d{2}\/\d{2}\/\d{4}$/.test(v)) errors.push([k, 'Enter the date of birth as DD/MM/YYYY']);
        }
        if (errors.length) return send(partnersPage(form, errors));
        partners = form;
        return redirect('/review');
      }
      if (path === '/submit') return send(shell('Application received', `<p>Your reference is <strong>TL-4821</strong>.</p>`));
      return send(businessPage(business, []));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as { port: number }).port;
  return state;
}
