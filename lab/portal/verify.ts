import { html } from '../html';
import { formOf, redirect } from '../http';
import { errorFor, errorSummary, fieldError, notice } from '../layouts/controls';
import { clientOf, sendPage, takeFlash, type PortalContext } from './context';
import { finishSignIn } from './sign-in';
import { completeSubmission } from './submit';

/** The one-time-code page: asked at sign-in or before the final submit, depending on the variant. */

export function showVerify(ctx: PortalContext): void {
  const purpose = ctx.session.otpFor;
  if (!purpose) return redirect(ctx.res, '/');
  const flash = takeFlash(ctx);
  const errors = flash.errors ?? [];
  const error = errorFor(errors, 'code');
  const original = ctx.variant.layout === 'original';
  const main = html`<h1>${purpose === 'signin' ? 'Check your phone' : 'Confirm it is you'}</h1>
${errorSummary(errors)}${notice(flash.notice ?? null)}
<p>We have sent a 6-digit verification code to the mobile number registered with this account. The code expires in 5 minutes.</p>
<form method="post" action="/verify" novalidate>
<div class="field"><label class="label" for="f-code">Verification code</label>${fieldError('code', error)}
<input class="${original ? 'input' : 'in'}" id="f-code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="6"${
    error ? html` aria-invalid="true" aria-describedby="f-code-error"` : ''
  }></div>
<div class="actions"><button class="${original ? 'button' : 'btn btn-primary'}" type="submit">${purpose === 'signin' ? 'Verify' : 'Verify and submit application'}</button></div>
</form>
<form method="post" action="/verify/resend"><button class="${original ? 'button button--secondary' : 'btn btn-light'}" type="submit">Send a new code</button></form>`;
  sendPage(ctx, { title: 'Verification code', main });
}

export function postVerify(ctx: PortalContext): void {
  const purpose = ctx.session.otpFor;
  const clientId = ctx.session.clientId;
  if (!purpose || !clientId) return redirect(ctx.res, '/');
  const code = (formOf(ctx.req).get('code') ?? '').trim();
  if (!code) {
    ctx.session.flash = { errors: [{ field: 'code', message: 'Enter the verification code' }] };
    return redirect(ctx.res, '/verify');
  }
  const result = ctx.state.otp.check(clientId, ctx.portal.id, purpose, code);
  if (result !== 'ok') {
    const message =
      result === 'wrong' ? 'The verification code is incorrect. Check the code and try again.' : 'The verification code has expired. Select “Send a new code”.';
    ctx.session.flash = { errors: [{ field: 'code', message }] };
    return redirect(ctx.res, '/verify');
  }
  ctx.session.otpFor = null;
  if (purpose === 'signin') {
    ctx.session.stage = 'signed-in';
    return finishSignIn(ctx);
  }
  completeSubmission(ctx, clientOf(ctx));
}

export function postResend(ctx: PortalContext): void {
  const purpose = ctx.session.otpFor;
  if (!purpose || !ctx.session.clientId) return redirect(ctx.res, '/');
  ctx.state.otp.send(ctx.session.clientId, ctx.portal.id, purpose);
  ctx.session.flash = { notice: 'We have sent a new code.' };
  redirect(ctx.res, '/verify');
}
