import type { ServerResponse } from 'node:http';
import { CAPTCHA_HOST, originOf } from './hosts';
import { html, trusted, type Html } from './html';
import { sendHtml, sendText, type LabRequest } from './http';

/**
 * A CAPTCHA that looks like reCAPTCHA: a third-party iframe on `www.google.example` (the lab
 * portals list it as a challenge host: the guard opens it only while the clerk holds the portal).
 * Ticking "I'm not a robot" posts to its own host from inside the frame, as reCAPTCHA does, and
 * opens an image challenge that never accepts an answer, so automation cannot pass it; only
 * `lab.solveCaptcha(clientId)` (the clerk solving it by hand) lets the client on.
 */

export const CAPTCHA_SITE_KEY = '6LcLabPortalDeskDemoKey000000000000';

export function captchaFrame(lab: { port: number; scheme: 'http' | 'https' }): Html {
  const src = `${originOf(CAPTCHA_HOST, lab.port, lab.scheme)}/recaptcha/api2/anchor?k=${CAPTCHA_SITE_KEY}&hl=en&size=normal`;
  return html`<div class="g-recaptcha" data-sitekey="${CAPTCHA_SITE_KEY}"><iframe title="reCAPTCHA" src="${src}" width="320" height="400" frameborder="0"></iframe></div>`;
}

const WIDGET_CSS = `body{margin:0;font:14px Roboto,Arial,sans-serif}
.rc{display:flex;align-items:center;justify-content:space-between;width:300px;height:74px;border:1px solid #d3d3d3;border-radius:3px;background:#f9f9f9;padding:0 12px;box-shadow:0 0 4px rgba(0,0,0,.08)}
.box{width:26px;height:26px;border:2px solid #c1c1c1;border-radius:2px;background:#fff;cursor:pointer}.row{display:flex;align-items:center;gap:12px}
.logo{text-align:center;font-size:10px;color:#555}.logo b{display:block;font-size:11px}
#challenge{width:300px;border:1px solid #d3d3d3;margin-top:6px;padding:8px;background:#fff}
#challenge .head{background:#1a73e8;color:#fff;padding:10px}.grid{display:grid;grid-template-columns:repeat(3,1fr);gap:4px;margin:6px 0}
.grid div{height:40px;background:#9db;cursor:pointer}.grid div[aria-pressed=true]{outline:3px solid #1a73e8}
#verify{background:#1a73e8;color:#fff;border:0;padding:8px 16px;float:right}#msg{color:#d93025;margin:4px 0;min-height:18px}`;

const WIDGET_SCRIPT = `
var anchor=document.getElementById('anchor');
function openChallenge(){anchor.setAttribute('aria-checked','mixed');document.getElementById('challenge').hidden=false;fetch('/recaptcha/api2/userverify',{method:'POST',body:'anchor=ticked'}).catch(function(){});}
anchor.addEventListener('click',openChallenge);
anchor.addEventListener('keydown',function(e){if(e.key===' '||e.key==='Enter'){e.preventDefault();openChallenge();}});
document.querySelectorAll('.grid div').forEach(function(t){t.addEventListener('click',function(){t.setAttribute('aria-pressed',t.getAttribute('aria-pressed')==='true'?'false':'true');});});
document.getElementById('verify').addEventListener('click',function(){document.getElementById('msg').textContent='Please try again.';document.querySelectorAll('.grid div').forEach(function(t){t.setAttribute('aria-pressed','false');t.style.background='hsl('+Math.floor(Math.random()*360)+',35%,65%)';});});`;

function widgetPage(): string {
  const tiles = Array.from({ length: 9 }, (_, i) => html`<div role="button" aria-pressed="false" aria-label="Image ${i + 1}"></div>`);
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>reCAPTCHA</title><style>${trusted(WIDGET_CSS)}</style></head><body>
<div class="rc"><div class="row"><div class="box" id="anchor" role="checkbox" aria-checked="false" tabindex="0" aria-labelledby="anchor-label"></div>
<span id="anchor-label">I'm not a robot</span></div><div class="logo"><b>reCAPTCHA</b>Privacy - Terms</div></div>
<div id="challenge" hidden><div class="head">Select all images with <strong>traffic lights</strong></div>
<div class="grid">${tiles}</div><p id="msg" role="alert"></p><button id="verify" type="button">Verify</button><div style="clear:both"></div></div>
<script>${trusted(WIDGET_SCRIPT)}</script></body></html>`.value;
}

export function handleCaptchaHost(req: LabRequest, res: ServerResponse): void {
  if (req.path.startsWith('/recaptcha/')) return sendHtml(res, 200, widgetPage());
  sendText(res, 404, 'Not found');
}
