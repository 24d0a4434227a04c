import type { Page } from 'playwright-core';
import { errorText } from '../../base/error-text';

/**
 * The acknowledgement of a submission, kept as proof: the confirmation page itself, as the
 * browser holds it (its HTML as rendered). Code never follows a link the page offers ("Download
 * your receipt", "Print a copy") nor asks the portal for the page again: a link is the page's
 * choice of address (it may void or file something), and a second GET of the confirmation's
 * address is a second request the clerk never saw. Nothing is sent to keep a receipt.
 */
export interface Receipt {
  bytes: Uint8Array;
  contentType: string;
  /** The confirmation page's address (where the bytes were read, not fetched from). */
  url: string;
  /** `receipt_link` is only in records of older runs; receipts are now always the page itself. */
  kind: 'receipt_link' | 'confirmation_page';
}

/** How long reading the page may take (a busy desk, a large page). */
const READ_MS = 10_000;

/** The confirmation page as the browser holds it now; no request leaves. */
export async function keepConfirmationPage(page: Page): Promise<{ receipt?: Receipt; notes: string[] }> {
  try {
    const html = await Promise.race([page.content(), new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the page was not read within ${READ_MS / 1000} s`)), READ_MS).unref())]);
    return { receipt: { bytes: Buffer.from(html, 'utf8'), contentType: 'text/html; charset=utf-8', url: page.url(), kind: 'confirmation_page' }, notes: [] };
  } catch (err) {
    return { notes: [`the confirmation page could not be read (${errorText(err)}); no receipt kept`] };
  }
}

/** The file extension a receipt is kept under. */
export function receiptExtension(contentType: string): string {
  if (contentType.includes('html')) return 'html';
  if (contentType.includes('pdf')) return 'pdf';
  if (contentType.includes('json')) return 'json';
  if (contentType.includes('text/plain')) return 'txt';
  return 'bin';
}
