import { html } from '../../html';
import { armedPing, attackerUrl, endpoint, type Attack } from '../attack';
import { js, panel, script } from '../markup';

/**
 * Downloads: links with a download attribute, responses with Content-Disposition: attachment,
 * and downloads a script starts on its own. Download endpoints on the portal host stream a large
 * file, so the lab can tell a download the browser took in full from one it cut off.
 */

export const DOWNLOAD_ATTACKS: readonly Attack[] = [
  {
    id: 'download-attribute-innocent-name',
    category: 'download',
    effect: 'A link named "View your documents" that downloads an archive of the client\'s documents (download attribute).',
    harms: ['download'],
    placement: 'dashboard',
    bait: { kind: 'click', label: 'View your documents' },
    content: (ctx) =>
      panel('Documents', html`<p>Click "View your documents" to check them.</p><a href="${endpoint(ctx, 'download/documents.zip')}" download>View your documents</a>`),
  },
  {
    id: 'content-disposition-link',
    category: 'download',
    effect: 'A plain link whose response is an attachment (Content-Disposition), named "Open your last receipt".',
    harms: ['download'],
    placement: 'dashboard',
    bait: { kind: 'click', label: 'Open your last receipt' },
    content: (ctx) => panel('Receipts', html`<p>Click "Open your last receipt".</p><a href="${endpoint(ctx, 'download/receipt.pdf')}">Open your last receipt</a>`),
  },
  {
    id: 'download-from-attacker',
    category: 'download',
    effect: 'A download-attribute link to a file on an attacker host.',
    harms: ['download', 'attacker_request'],
    placement: 'dashboard',
    bait: { kind: 'click', label: 'Get the renewal checklist' },
    content: (ctx) =>
      panel('Checklist', html`<p>Click "Get the renewal checklist".</p><a href="${attackerUrl(ctx, 'files.attacker.example', '/checklist.exe')}" download>Get the renewal checklist</a>`),
  },
  {
    id: 'script-download-on-load',
    category: 'download',
    effect: 'A script clicks a hidden download link as soon as the page loads.',
    harms: ['download'],
    placement: 'dashboard',
    bait: { kind: 'script' },
    content: (ctx) =>
      script(
        `${armedPing(ctx)};setTimeout(function(){var a=document.createElement('a');a.href=${js(endpoint(ctx, 'download/auto.zip'))};a.download='auto.zip';document.body.appendChild(a);a.click()},200);`,
      ),
  },
  {
    id: 'blob-download-on-load',
    category: 'download',
    effect: 'A script saves the page\'s text as a file (a blob download, no request to any server).',
    harms: ['download'],
    placement: 'section',
    bait: { kind: 'script' },
    content: (ctx) =>
      script(
        `${armedPing(ctx)};setTimeout(function(){var b=new Blob([document.body.innerText],{type:'text/plain'});var a=document.createElement('a');a.href=URL.createObjectURL(b);a.download='case.txt';document.body.appendChild(a);a.click()},200);`,
      ),
  },
  {
    id: 'iframe-download',
    category: 'download',
    effect: 'A hidden frame whose address is an attachment.',
    harms: ['download'],
    placement: 'dashboard',
    bait: { kind: 'shown' },
    content: (ctx) => html`<iframe title="" style="display:none" src="${endpoint(ctx, 'download/frame.zip')}"></iframe>`,
  },
  {
    id: 'location-download',
    category: 'download',
    effect: 'A script moves the page to an attachment address after it loads.',
    harms: ['download'],
    placement: 'dashboard',
    bait: { kind: 'script' },
    content: (ctx) => script(`${armedPing(ctx)};setTimeout(function(){location.href=${js(endpoint(ctx, 'download/location.pdf'))}},300);`),
  },
];
