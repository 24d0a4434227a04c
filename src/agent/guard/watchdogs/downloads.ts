import type { BrowserContext, Download } from 'playwright-core';
import { onEveryPage } from './every-page';
import { safeSink, type GuardEventSink } from './guard-event';

/**
 * Nothing a page offers is saved. The context is made with `acceptDownloads: false` (see
 * `contextOptionsFor`), so Chromium refuses to write the file; this watchdog also cancels any
 * download that starts and reports it, so the clerk knows the portal offered a file.
 */
export function installDownloadGuard(context: BrowserContext, report: GuardEventSink): () => void {
  const emit = safeSink(report);
  return onEveryPage(context, (page) => {
    page.on('download', (download: Download) => {
      void download.cancel().catch(() => undefined);
      emit({
        type: 'download_blocked',
        url: download.url(),
        detail: `Refused a download of “${download.suggestedFilename().slice(0, 120)}”; downloads are off in Portal Desk`,
      });
    });
  });
}
