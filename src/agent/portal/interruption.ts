import type { Control } from '../../shared/observation';
import type { PageRead } from '../observe/page-read';
import { labelledButtons } from './labelled-buttons';

/**
 * Interruptions: a cookie-consent banner or a survey dialog drawn over the portal's page, catching
 * every click until it is answered. Code answers it the way that commits the client to nothing
 * ("Reject non-essential" cookies, "No thanks" to a survey), before sign-in and before the model
 * is asked, so neither code's own clicks nor the model's land on the overlay. Only a button inside
 * a modal dialog is pressed (role dialog/alertdialog with aria-modal, or an open <dialog>); a
 * "Reject" button on the form itself is never touched, and the guard still judges the click.
 */

/** Declining answers, best first (labels after normaliseLabel: lower case, punctuation as spaces). */
const DECLINE: readonly RegExp[] = [
  /^reject (all|non essential|additional|optional|analytics)( cookies)?$/,
  /^(accept |use )?(only )?(strictly )?(necessary|essential) cookies( only)?$/,
  /^no (thanks|thank you)$/,
  /^not now$/,
  /^(maybe|remind me) later$/,
  /^skip( the)?( survey| feedback)?$/,
  /^(close|dismiss)( the)?( survey| dialog| feedback)?$/,
];

interface Interruption {
  /** The declining button. */
  control: Control;
  /** The dialog's title, for the step log: "Cookies on this service". */
  title: string;
  /**
   * What pressing it does, as the page's markup says: stays on the page, sends a form (its
   * method and action), or follows a link. Code declines by itself only when the request it
   * causes is free; the commit gate judges that request again when it leaves.
   */
  effect: { kind: 'stays' } | { kind: 'submits'; method: string; url: string } | { kind: 'navigates'; url: string };
}

/** A modal dialog over the page with a declining button, or null. Answers in milliseconds. */
export async function findInterruption(read: PageRead): Promise<Interruption | null> {
  for (const control of labelledButtons(read.observation.controls, DECLINE)) {
    const element = await read.resolve(control.ref);
    if (!element) continue;
    const found = await element
      .evaluate((el) => {
        const dialog = el.closest('[role=dialog][aria-modal=true], [role=alertdialog][aria-modal=true], dialog[open]');
        if (!dialog) return null;
        const labelledBy = dialog.getAttribute('aria-labelledby');
        const named = labelledBy ? document.getElementById(labelledBy)?.textContent : dialog.getAttribute('aria-label');
        const title = (named ?? dialog.querySelector('h1, h2, h3')?.textContent ?? 'a dialog').trim().replace(/\s+/g, ' ').slice(0, 120);
        const button = el as HTMLButtonElement & HTMLInputElement;
        const form = button.form ?? null;
        const submits = form !== null && ((el.tagName === 'BUTTON' && (button.type || 'submit') === 'submit') || (el.tagName === 'INPUT' && ['submit', 'image'].includes(button.type)));
        if (submits) {
          // A method override the server reads (`_method=DELETE` in the form or its address) is the method the form really sends.
          // `formAction` reads the page's own address when the button has no formaction attribute: the form's action is then what it sends to.
          const action = button.hasAttribute('formaction') ? button.formAction : form.action;
          const field = Array.from(form.elements).find((e) => /^_?method$|^x-http-method(-override)?$/i.test((e as HTMLInputElement).name ?? '')) as HTMLInputElement | undefined;
          let query: string | null = null;
          try {
            query = new URL(action).searchParams.get('_method');
          } catch {
            // An address that does not parse: the gate refuses it when it leaves.
          }
          const override = (field?.value || query || '').trim().toUpperCase();
          return { title, effect: { kind: 'submits' as const, method: override || ((button.hasAttribute('formmethod') && button.formMethod) || form.method || 'get').toUpperCase(), url: action } };
        }
        const link = el.closest('a[href]') as HTMLAnchorElement | null;
        if (link && !/^(javascript:|#)/i.test(link.getAttribute('href') ?? '')) return { title, effect: { kind: 'navigates' as const, url: link.href } };
        return { title, effect: { kind: 'stays' as const } };
      })
      .catch(() => null);
    if (found !== null) return { control, ...found };
  }
  return null;
}
