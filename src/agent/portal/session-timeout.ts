import type { Control } from '../../shared/observation';
import { normaliseLabel } from '../decide/rules/field-names';
import type { PageRead } from '../observe/page-read';
import { labelledButtons } from './labelled-buttons';

/**
 * A session-timeout warning: "Your session will expire in 60 seconds", drawn over the page with a
 * button that keeps the session. Code presses that button (through the guard, recorded in the step
 * log) before the model is asked, so a slow clerk or a long approval does not lose the client's
 * answers. Only a button inside a modal dialog whose words are a timeout warning is pressed; a
 * "Sign out" beside it never is.
 */

/** The warning's words (after normaliseLabel). */
const WARNING = /\b(session|you) (will|is about to|are about to) (expire|time out|timeout|end|be signed out|be logged out)\b|\bsession (is )?(expiring|timing out)\b|\bare you still there\b|\bstill working on this\b/;
/** Buttons that keep the session, best first. */
const KEEP: readonly RegExp[] = [
  /^(continue|extend|keep|renew)( my| the| your)? session$/,
  /^(stay|keep me) (signed|logged) in$/,
  /^(i m )?still here$/,
  /^(yes )?continue$/,
  /^extend( time)?$/,
];

interface SessionWarning {
  control: Control;
  /** The dialog's heading or label, for the step log. */
  title: string;
}

/** The session-timeout warning on the page, with its keep-the-session button, or null. */
export async function findSessionWarning(read: PageRead): Promise<SessionWarning | null> {
  for (const control of labelledButtons(read.observation.controls, KEEP)) {
    const element = await read.resolve(control.ref);
    if (!element) continue;
    const title = await element
      .evaluate((el) => {
        const dialog = el.closest('[role=dialog], [role=alertdialog], dialog[open]');
        if (!dialog) return null;
        const labelledBy = dialog.getAttribute('aria-labelledby');
        const named = labelledBy ? document.getElementById(labelledBy)?.textContent : dialog.getAttribute('aria-label');
        return { title: (named ?? dialog.querySelector('h1, h2, h3')?.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 160), text: (dialog.textContent ?? '').replace(/\s+/g, ' ').slice(0, 600) };
      })
      .catch(() => null);
    if (title && WARNING.test(normaliseLabel(`${title.title} ${title.text}`))) return { control, title: title.title || 'Session-timeout warning' };
  }
  return null;
}
