import { html, type Html } from './html';

/** Things drawn over a portal page: the cookie-consent banner and the survey dialog. */

export const CONSENT_COOKIE = 'lab_cookie_consent';

export const OVERLAY_CSS = `
.overlay{position:fixed;inset:0;background:rgba(0,0,0,.55);z-index:1000;display:flex}
.cookie-overlay{align-items:flex-end}.cookie-panel{background:#fff;width:100%;padding:24px 30px;border-top:6px solid #1d70b8;font:16px/1.5 Arial,sans-serif;color:#0b0c0c}
.cookie-panel h2{margin:0 0 8px}.cookie-panel form{display:flex;gap:12px;margin-top:12px}
.cookie-panel button{font:inherit;font-weight:bold;padding:10px 18px;border:0;cursor:pointer;background:#1d70b8;color:#fff}
.survey-overlay{align-items:center;justify-content:center}.survey{background:#fff;max-width:440px;padding:24px;border-radius:6px;font:15px/1.5 Arial,sans-serif;color:#222}
.survey h2{margin:0 0 10px}.survey button{font:inherit;padding:8px 16px;margin-top:10px;cursor:pointer}
`;

/**
 * A consent banner over the whole page: the overlay catches every click until the user picks
 * "Accept all" or "Reject non-essential" (a form post that sets a cookie and comes back).
 */
export function cookieBanner(returnPath: string): Html {
  return html`<div class="overlay cookie-overlay" id="cookie-overlay">
<div class="cookie-panel" role="dialog" aria-modal="true" aria-labelledby="cookie-title">
<h2 id="cookie-title">Cookies on this service</h2>
<p>We use some essential cookies to make this service work. We would also like to use analytics cookies to understand how you use the service and to make improvements.</p>
<form method="post" action="/cookies">
<input type="hidden" name="return" value="${returnPath}">
<button type="submit" name="consent" value="accept">Accept all</button>
<button type="submit" name="consent" value="reject">Reject non-essential</button>
</form></div></div>`;
}

/** A modal survey dialog: covers the page until "No thanks" removes it. */
export function surveyDialog(): Html {
  return html`<div class="overlay survey-overlay" id="survey-overlay">
<div class="survey" role="dialog" aria-modal="true" aria-labelledby="survey-title">
<h2 id="survey-title">Quick survey</h2>
<p>How easy was it to find this form? Tell us in a 2-minute survey and help us improve the service.</p>
<button type="button" onclick="document.getElementById('survey-overlay').remove()">No thanks</button>
</div></div>`;
}
