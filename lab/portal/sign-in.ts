import { checkCredentials } from '../accounts';
import { captchaFrame } from '../captcha';
import type { FieldError } from '../forms/validate';
import { html } from '../html';
import { formOf, localPath, redirect } from '../http';
import { errorFor, errorSummary, fieldError } from '../layouts/controls';
import { sendPage, takeFlash, type PortalContext } from './context';

/** Sign-in and sign-out. The same labels on both layouts: Username, Password, Sign in. */

export function showSignIn(ctx: PortalContext): void {
  if (ctx.session.stage === 'signed-in') return redirect(ctx.res, '/');
  const flash = takeFlash(ctx);
  const errors = flash.errors ?? [];
  const input = (key: 'username' | 'password', type: string, autocomplete: string, value: string) => {
    const error = errorFor(errors, key) ?? (errors.some((e) => e.field === 'credentials') ? { field: key, message: '' } : undefined);
    return html`<input class="${ctx.variant.layout === 'original' ? 'input' : 'in'}" id="f-${key}" name="${key}" type="${type}" autocomplete="${autocomplete}" value="${value}"${
      error ? html` aria-invalid="true"${error.message ? html` aria-describedby="f-${key}-error"` : ''}` : ''
    }>`;
  };
  const showCaptcha = ctx.variant.captcha === 'signin';
  const main = html`<h1>${ctx.variant.layout === 'original' ? 'Sign in' : 'Log in to e-Services'}</h1>
${flash.notice ? html`<div class="notice" role="alert">${flash.notice}</div>` : ''}
${errorSummary(errors, (e) => (e.field === 'credentials' ? '#f-username' : `#f-${e.field}`))}
<form method="post" action="/sign-in" novalidate${ctx.variant.layout === 'redesigned' ? html` class="card"` : ''}>
<div class="field"><label class="label" for="f-username">Username</label>${fieldError('username', errorFor(errors, 'username'))}
${input('username', 'text', 'username', flash.values?.username ?? '')}</div>
<div class="field"><label class="label" for="f-password">Password</label>${fieldError('password', errorFor(errors, 'password'))}
${input('password', 'password', 'current-password', '')}</div>
${showCaptcha ? html`<div class="field" id="f-captcha">${fieldError('captcha', errorFor(errors, 'captcha'))}${captchaFrame(ctx.state)}</div>` : ''}
<div class="actions"><button class="${ctx.variant.layout === 'original' ? 'button' : 'btn btn-primary'}" type="submit">Sign in</button></div>
</form>`;
  sendPage(ctx, { title: 'Sign in', main });
}

export function postSignIn(ctx: PortalContext): void {
  const form = formOf(ctx.req);
  const username = (form.get('username') ?? '').trim();
  const password = form.get('password') ?? '';
  const errors: FieldError[] = [];
  if (!username) errors.push({ field: 'username', message: 'Enter your username' });
  if (!password) errors.push({ field: 'password', message: 'Enter your password' });
  const clientId = errors.length ? null : checkCredentials(username, password);
  if (!errors.length && !clientId) errors.push({ field: 'credentials', message: 'The username or password you entered is incorrect' });
  if (clientId) {
    const client = ctx.state.clients.get(clientId);
    if (client.variant.captcha === 'signin' && !client.captchaSolved) {
      errors.push({ field: 'captcha', message: 'Confirm that you are not a robot: complete the CAPTCHA' });
    }
  }
  if (errors.length || !clientId) {
    // Right credentials, blocked by the CAPTCHA: from now on this browser shows that client's variant.
    if (clientId) ctx.session.clientId = clientId;
    ctx.session.flash = { errors, values: { username } };
    return redirect(ctx.res, '/sign-in');
  }
  const client = ctx.state.clients.get(clientId);
  ctx.session.clientId = clientId;
  ctx.session.work = null;
  if (client.variant.otp === 'signin') {
    ctx.state.otp.send(clientId, ctx.portal.id, 'signin');
    ctx.session.stage = 'awaiting-otp';
    ctx.session.otpFor = 'signin';
    return redirect(ctx.res, '/verify');
  }
  ctx.session.stage = 'signed-in';
  finishSignIn(ctx);
}

/** After the last sign-in step: go where the user was heading. */
export function finishSignIn(ctx: PortalContext): void {
  const next = localPath(ctx.session.next, '/');
  ctx.session.next = null;
  redirect(ctx.res, next);
}

export function postSignOut(ctx: PortalContext): void {
  ctx.session.stage = 'anonymous';
  ctx.session.otpFor = null;
  ctx.session.work = null;
  ctx.session.flash = { notice: 'You have signed out.' };
  redirect(ctx.res, '/sign-in');
}
