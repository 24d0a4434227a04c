import type { BrowserContext, Dialog } from 'playwright-core';
import { onEveryPage } from './every-page';
import { safeSink, type GuardEventSink } from './guard-event';

/**
 * alert, confirm, prompt and beforeunload never hang a run: each is dismissed at once (confirm
 * answers false, prompt answers null, beforeunload keeps the page and whatever was typed in it)
 * and reported with its text, which is page text and so only data.
 */
export function installDialogGuard(context: BrowserContext, report: GuardEventSink): () => void {
  const emit = safeSink(report);
  return onEveryPage(context, (page) => {
    page.on('dialog', (dialog: Dialog) => {
      const message = dialog.message().replace(/\s+/g, ' ').trim().slice(0, 200);
      void dialog.dismiss().catch(() => undefined);
      emit({
        type: 'dialog_dismissed',
        url: page.url(),
        detail: `Dismissed a ${dialog.type()} dialog${message ? `: “${message}”` : ''}`,
      });
    });
  });
}
