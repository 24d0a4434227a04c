import { escapeHtml as e } from '../html';
import { ADDRESSES_HOST, DECLARATION, DISTRICTS, DOCUMENT_SLOTS, WARDS, type PermitApplication } from './data';

/** The permits portal's pages. Every widget here is one a real portal uses; see README.md. */

const STYLE = `body{font:15px/1.4 sans-serif;margin:0;color:#111}header{background:#234;color:#fff;padding:.6rem 1.2rem}main{padding:1rem 1.2rem;max-width:46rem}
label,.label{display:block;margin-top:.9rem;font-weight:600}input{font:inherit;padding:.2rem}fieldset{margin-top:.9rem}
.error-summary{border:3px solid #b00;padding:.5rem 1rem}.field-error{color:#b00;margin:.2rem 0}
.calendar{border:1px solid #888;padding:.5rem;width:18rem;background:#fff}.calendar .days{display:grid;grid-template-columns:repeat(7,2.2rem);gap:2px}
[role=listbox]{list-style:none;margin:0;padding:0;border:1px solid #888;width:18rem;background:#fff}[role=option]{padding:.2rem .4rem;cursor:pointer}
.select2-container{display:inline-block;border:1px solid #888;min-width:16rem;padding:.25rem;cursor:pointer}.select2-dropdown{border:1px solid #888;width:18rem;background:#fff}
[role=checkbox]{display:inline-block;border:1px solid #555;padding:.2rem .6rem;margin:.5rem .5rem 0 0;cursor:pointer}[role=checkbox][aria-checked=true]{background:#cde}
.modal-back{position:fixed;inset:0;background:rgba(0,0,0,.45);display:flex;align-items:center;justify-content:center}.modal{background:#fff;padding:1rem 1.4rem;max-width:26rem}
button{font:inherit;margin-top:1rem}`;

export function page(title: string, body: string, step?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${e(title)} - Trade permits</title><style>${STYLE}</style></head>
<body><header>Municipal Corporation · Trade permits</header><main>${step ? `<p class="step">${e(step)}</p>` : ''}<h1>${e(title)}</h1>${body}</main></body></html>`;
}

export interface FieldErrors {
  [field: string]: string;
}

function summary(errors: FieldErrors, ids: Record<string, string>): string {
  const entries = Object.entries(errors);
  if (entries.length === 0) return '';
  return `<div class="error-summary" role="alert"><h2>There is a problem</h2><ul>${entries.map(([k, m]) => `<li><a href="#${ids[k] ?? k}">${e(m)}</a></li>`).join('')}</ul></div>`;
}

function err(errors: FieldErrors, key: string, id: string): { attrs: string; text: string } {
  const m = errors[key];
  return m ? { attrs: ` aria-invalid="true" aria-describedby="${id}-error"`, text: `<p class="field-error" id="${id}-error">${e(m)}</p>` } : { attrs: '', text: '' };
}

export function home(): string {
  return page('Apply for a trade permit', `<p>Use this service to apply for a permit to run a shop or stall in the city.</p><p><a href="/apply/applicant">Start a new application</a></p>`);
}

/** Step 1: the applicant. A date in three boxes, a read-only date with a calendar, a phone without country code, an autocomplete and a select2-style box. */
export function applicant(app: PermitApplication, errors: FieldErrors = {}): string {
  const [y, m, d] = app.date_of_birth ? app.date_of_birth.split('-') : ['', '', ''];
  const since = app.trading_since ? app.trading_since.split('-').reverse().join('/') : '';
  const name = err(errors, 'applicant_name', 'applicant');
  const dob = err(errors, 'date_of_birth', 'dob-day');
  const trade = err(errors, 'trading_since', 'since');
  const mobile = err(errors, 'mobile_number', 'mobile');
  const district = err(errors, 'district', 'district');
  const ward = err(errors, 'ward', 'ward-box');
  return page(
    'About the applicant',
    `${summary(errors, { applicant_name: 'applicant', date_of_birth: 'dob-day', trading_since: 'since', mobile_number: 'mobile', district: 'district', ward: 'ward-box' })}
<form method="post" action="/apply/applicant">
<label for="applicant">Applicant name</label><input id="applicant" name="applicant_name" value="${e(app.applicant_name)}"${name.attrs}>${name.text}
<fieldset><legend>Date of birth</legend>${dob.text}
  <label for="dob-day">Day</label><input id="dob-day" name="dob_day" inputmode="numeric" maxlength="2" size="2" value="${e(Number(d) ? d! : '')}"${dob.attrs}>
  <label for="dob-month">Month</label><input id="dob-month" name="dob_month" inputmode="numeric" maxlength="2" size="2" value="${e(Number(m) ? m! : '')}">
  <label for="dob-year">Year</label><input id="dob-year" name="dob_year" inputmode="numeric" maxlength="4" size="4" value="${e(y ?? '')}">
</fieldset>
<label for="since">Trading since</label><input id="since" name="trading_since" readonly placeholder="DD/MM/YYYY" aria-haspopup="dialog" value="${e(since)}"${trade.attrs}>${trade.text}
<div id="cal" class="calendar" role="dialog" aria-label="Choose a date" hidden>
  <select id="cal-month" aria-label="Month">${['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'].map((mo, i) => `<option value="${i}">${mo}</option>`).join('')}</select>
  <select id="cal-year" aria-label="Year">${Array.from({ length: 40 }, (_, i) => 1990 + i).map((yr) => `<option>${yr}</option>`).join('')}</select>
  <strong id="cal-label"></strong>
  <div class="days" id="cal-days"></div>
</div>
<label for="mobile">Mobile number</label><input id="mobile" name="mobile_number" inputmode="numeric" maxlength="10" placeholder="10-digit mobile number, without country code" value="${e(app.mobile_number)}"${mobile.attrs}>${mobile.text}
<label for="district" id="district-label">District</label>
<input id="district" name="district" role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="district-list" autocomplete="off" value="${e(app.district)}"${district.attrs}>${district.text}
<ul id="district-list" role="listbox" aria-labelledby="district-label" hidden></ul>
<span class="label" id="ward-label">Ward</span>
<select id="ward" name="ward" hidden><option value=""></option>${WARDS.map((w) => `<option${w === app.ward ? ' selected' : ''}>${e(w)}</option>`).join('')}</select>
<span class="select2-container"><span id="ward-box" role="combobox" tabindex="0" aria-labelledby="ward-label" aria-expanded="false"${ward.attrs}>${e(app.ward || 'Choose a ward')}</span></span>${ward.text}
<div id="ward-drop" class="select2-dropdown" hidden><input class="select2-search__field" type="search" aria-label="Search wards"><ul role="listbox" id="ward-options"></ul></div>
<div><button type="submit">Save and continue</button></div>
</form>
<script>
const MONTHS=['January','February','March','April','May','June','July','August','September','October','November','December'];
const since=document.getElementById('since'),cal=document.getElementById('cal'),cm=document.getElementById('cal-month'),cy=document.getElementById('cal-year');
function drawCal(){const m=+cm.value,y=+cy.value;document.getElementById('cal-label').textContent=MONTHS[m]+' '+y;const days=document.getElementById('cal-days');days.replaceChildren();
for(let d=1;d<=new Date(y,m+1,0).getDate();d++){const b=document.createElement('button');b.type='button';b.textContent=String(d);b.onclick=()=>{since.value=String(d).padStart(2,'0')+'/'+String(m+1).padStart(2,'0')+'/'+y;cal.hidden=true;};days.append(b);}}
since.addEventListener('click',()=>{cm.value='11';cy.value='2026';cal.hidden=false;drawCal();});cm.onchange=drawCal;cy.onchange=drawCal;
const DISTRICTS=${JSON.stringify(DISTRICTS)};const district=document.getElementById('district'),list=document.getElementById('district-list');
district.addEventListener('input',()=>{const t=district.value.trim().toLowerCase();list.replaceChildren();const hits=t?DISTRICTS.filter(d=>d.toLowerCase().startsWith(t.slice(0,3))):[];
for(const d of hits){const li=document.createElement('li');li.setAttribute('role','option');li.textContent=d;li.onclick=()=>{district.value=d;list.hidden=true;district.setAttribute('aria-expanded','false');};list.append(li);}
setTimeout(()=>{list.hidden=hits.length===0;district.setAttribute('aria-expanded',String(hits.length>0));},150);});
const ward=document.getElementById('ward'),box=document.getElementById('ward-box'),drop=document.getElementById('ward-drop'),wo=document.getElementById('ward-options'),ws=drop.querySelector('input');
function drawWards(){wo.replaceChildren();for(const o of Array.from(ward.options).slice(1)){if(ws.value&&!o.text.toLowerCase().includes(ws.value.toLowerCase()))continue;const li=document.createElement('li');li.setAttribute('role','option');li.textContent=o.text;
li.onclick=()=>{ward.value=o.value;box.textContent=o.text;drop.hidden=true;box.setAttribute('aria-expanded','false');};wo.append(li);}}
box.addEventListener('click',()=>{drop.hidden=false;box.setAttribute('aria-expanded','true');ws.value='';drawWards();});ws.addEventListener('input',drawWards);
</script>`,
    'Step 1 of 3: Applicant',
  );
}

/** Step 2: the premises. An address block inside a shadow root, an address finder in a frame of the second host, checkboxes drawn with spans. */
export function premises(app: PermitApplication, port: number, errors: FieldErrors = {}): string {
  const box = (key: 'home_delivery' | 'outdoor_seating', label: string) =>
    `<span role="checkbox" tabindex="0" data-key="${key}" aria-checked="${app[key]}">${label}</span><input type="hidden" name="${key}" value="${app[key] ? 'yes' : ''}">`;
  return page(
    'About the premises',
    `${summary(errors, {})}
<form method="post" action="/apply/premises" id="premises">
<shop-address data-line1="${e(app.shop_address_line_1)}" data-pin="${e(app.shop_pin_code)}"></shop-address>
<input type="hidden" name="shop_address_line_1"><input type="hidden" name="shop_pin_code"><input type="hidden" name="nearest_landmark" value="${e(app.nearest_landmark)}">
<p class="label">Address finder</p>
<iframe title="Address finder" src="http://${ADDRESSES_HOST}:${port}/finder?landmark=${encodeURIComponent(app.nearest_landmark)}" width="520" height="110"></iframe>
<fieldset><legend>Services at the shop</legend>${box('home_delivery', 'Home delivery')}${box('outdoor_seating', 'Outdoor seating')}</fieldset>
<div><button type="submit">Save and continue</button></div>
</form>
<script>
customElements.define('shop-address',class extends HTMLElement{connectedCallback(){const r=this.attachShadow({mode:'open'});
r.innerHTML='<fieldset><legend>Shop address</legend><label for="l1">Shop address line 1</label><input id="l1"><label for="pin">Shop PIN code</label><input id="pin" inputmode="numeric"></fieldset>';
r.getElementById('l1').value=this.dataset.line1||'';r.getElementById('pin').value=this.dataset.pin||'';}});
for(const el of document.querySelectorAll('[role=checkbox]')){const sync=()=>{el.nextElementSibling.value=el.getAttribute('aria-checked')==='true'?'yes':'';};
el.addEventListener('click',()=>{el.setAttribute('aria-checked',el.getAttribute('aria-checked')==='true'?'false':'true');sync();});
el.addEventListener('keydown',(ev)=>{if(ev.key===' '){ev.preventDefault();el.click();}});}
window.addEventListener('message',(ev)=>{if(ev.origin==='http://${ADDRESSES_HOST}:${port}'&&typeof ev.data?.landmark==='string')document.querySelector('[name=nearest_landmark]').value=ev.data.landmark;});
document.getElementById('premises').addEventListener('submit',()=>{const r=document.querySelector('shop-address').shadowRoot;
document.querySelector('[name=shop_address_line_1]').value=r.getElementById('l1').value;document.querySelector('[name=shop_pin_code]').value=r.getElementById('pin').value;});
</script>`,
    'Step 2 of 3: Premises',
  );
}

/** The address finder, served by the second host inside the premises page's frame. */
export function finder(landmark: string, port: number, permitsOrigin: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Address finder</title></head><body style="font:14px sans-serif">
<label for="lm">Nearest landmark</label> <input id="lm" value="${e(landmark)}" autocomplete="off">
<script>const lm=document.getElementById('lm');lm.addEventListener('input',()=>parent.postMessage({landmark:lm.value},'${permitsOrigin}'));</script>
<!-- port ${port} --></body></html>`;
}

/** Step 3: documents and the declaration, with the session-timeout warning shown over it. */
export function documents(app: PermitApplication, errors: FieldErrors = {}, warn = true): string {
  const slots = DOCUMENT_SLOTS.map((slot) => {
    const m = err(errors, slot.key, slot.key);
    const held = app.documents[slot.key];
    return `<label for="${slot.key}">${slot.label}${slot.required ? '' : ' (optional)'}</label><input type="file" id="${slot.key}" name="${slot.key}" accept=".pdf,.jpg,.jpeg,.png"${m.attrs}>${
      held ? `<p>Attached: ${e(held.file)}</p>` : ''
    }${m.text}`;
  }).join('');
  const decl = err(errors, 'declaration', 'declaration');
  return page(
    'Documents',
    `${summary(errors, {})}
<form method="post" action="/apply/documents" enctype="multipart/form-data">${slots}
<div><input type="checkbox" id="declaration" name="declaration" value="yes"${app.declaration ? ' checked' : ''}${decl.attrs}><label for="declaration" style="display:inline">${e(DECLARATION)}</label>${decl.text}</div>
<div><button type="submit">Save and continue</button></div>
</form>
${
  warn
    ? `<div class="modal-back" id="timeout"><div class="modal" role="alertdialog" aria-modal="true" aria-labelledby="to-h"><h2 id="to-h">Your session will expire in 60 seconds</h2>
<p>For your security we will sign you out unless you continue.</p><button type="button" id="keep">Continue session</button> <button type="button" id="quit">Sign out</button></div></div>
<script>document.getElementById('keep').onclick=()=>fetch('/session/extend',{method:'POST'}).then(()=>document.getElementById('timeout').remove());
document.getElementById('quit').onclick=()=>{location.href='/signed-out';};</script>`
    : ''
}`,
    'Step 3 of 3: Documents',
  );
}

export function review(app: PermitApplication): string {
  const rows: [string, string][] = [
    ['Applicant name', app.applicant_name],
    ['Date of birth', app.date_of_birth],
    ['Trading since', app.trading_since],
    ['Mobile number', app.mobile_number],
    ['District', app.district],
    ['Ward', app.ward],
    ['Shop address', `${app.shop_address_line_1}, ${app.shop_pin_code}`],
    ['Nearest landmark', app.nearest_landmark],
    ['Home delivery', app.home_delivery ? 'Yes' : 'No'],
    ['Outdoor seating', app.outdoor_seating ? 'Yes' : 'No'],
    ...DOCUMENT_SLOTS.map((s): [string, string] => [s.label, app.documents[s.key]?.file ?? 'Not attached']),
  ];
  return page(
    'Check your answers',
    `<dl>${rows.map(([k, v]) => `<dt>${e(k)}</dt><dd>${e(v)}</dd>`).join('')}</dl>
<form method="post" action="/apply/submit"><button type="submit">Submit application</button></form>`,
  );
}

/** The confirmation; like many real portals it opens the receipt in a new tab by itself, and links to it. */
export function confirmation(number: string): string {
  return page(
    'Application received',
    `<p>Your application number is <strong>${e(number)}</strong>.</p><p><a href="/receipt/${e(number)}" target="_blank">Open your receipt</a> (opens in a new tab)</p>
<script>window.open('/receipt/${e(number)}', '_blank');</script>`,
  );
}

export function receipt(number: string, app: PermitApplication): string {
  return page('Receipt', `<p>Receipt for application <strong>${e(number)}</strong>, ${e(app.applicant_name)}.</p>`);
}
