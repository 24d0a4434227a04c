import { captchaFrame } from '../captcha';
import { html } from '../html';
import { localPath, redirect } from '../http';
import { errorFor, errorSummary, fieldError } from '../layouts/controls';
import { clientOf, sendPage, takeFlash, type PortalContext } from './context';

/** "Verify you are human": the interstitial in front of the form when the variant asks for it. */

/** True when the client may see the form; otherwise answers with a redirect to the check. */
export function passedHumanCheck(ctx: PortalContext): boolean {
  const client = clientOf(ctx);
  if (client.variant.captcha !== 'form' || client.captchaSolved) return true;
  if (ctx.req.method === 'GET') ctx.session.next = ctx.req.path;
  redirect(ctx.res, '/human-check');
  return false;
}

export function showHumanCheck(ctx: PortalContext): void {
  const flash = takeFlash(ctx);
  const errors = flash.errors ?? [];
  const original = ctx.variant.layout === 'original';
  const main = html`<h1>Verify you are human</h1>
${errorSummary(errors)}
<p>We need to check that you are not a robot before you continue to the application form.</p>
<form method="post" action="/human-check">
<div class="field" id="f-captcha">${fieldError('captcha', errorFor(errors, 'captcha'))}${captchaFrame(ctx.state)}</div>
<div class="actions"><button class="${original ? 'button' : 'btn btn-primary'}" type="submit">Continue</button></div>
</form>`;
  sendPage(ctx, { title: 'Verify you are human', main });
}

export function postHumanCheck(ctx: PortalContext): void {
  if (!clientOf(ctx).captchaSolved) {
    ctx.session.flash = { errors: [{ field: 'captcha', message: 'Complete the CAPTCHA to continue' }] };
    return redirect(ctx.res, '/human-check');
  }
  const next = localPath(ctx.session.next, '/apply/start');
  ctx.session.next = null;
  redirect(ctx.res, next);
}
