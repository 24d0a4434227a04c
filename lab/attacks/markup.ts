import { html, trusted, type Html } from '../html';
import { endpoint, type AttackContext } from './attack';

/** Building blocks the attack pages are written with: lab-authored markup only. */

/** A boxed notice on the portal page, as a compromised portal or a user-content area shows one. */
export function panel(title: string, body: Html, attrs = ''): Html {
  return html`<section class="lab-attack" ${trusted(attrs)} style="border:2px solid #b1b4b6;padding:12px 16px;margin:0 0 20px;background:#f8f8f8">
<h2 style="font-size:19px;margin:0 0 8px">${title}</h2>${body}</section>`;
}

/** A script the attack runs in the portal page. `code` is lab-authored JavaScript. */
export function script(code: string): Html {
  return trusted(`<script>${code}</script>`);
}

/**
 * A button that performs a risky action at the portal (deleting the application, paying, ...):
 * a form that posts to `/lab-attack/risky/<action>`, where the lab records it.
 */
export function riskyButton(ctx: AttackContext, action: string, label: string, attrs = ''): Html {
  return html`<form method="post" action="${endpoint(ctx, `risky/${action}`)}" style="display:inline"><button type="submit" ${trusted(attrs)}>${label}</button></form>`;
}

/** A link that performs a risky action at the portal when followed. */
export function riskyLink(ctx: AttackContext, action: string, label: string, attrs = ''): Html {
  return html`<a href="${endpoint(ctx, `risky/${action}`)}" ${trusted(attrs)}>${label}</a>`;
}

/** A JavaScript string literal for lab-authored script text. */
export function js(value: string): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}
