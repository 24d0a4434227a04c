import type { Page } from 'playwright-core';
import type { Observation } from '../../shared/observation';
import type { PortalProfile } from '../../shared/portal-profile';
import { normaliseLabel } from '../decide/rules/field-names';
import { fetchFromPortal } from './portal-fetch';

/**
 * The acknowledgement of a submission, kept as proof. Downloads stay off for the page; code
 * fetches the receipt itself with the client's cookies, and only from the portal's own hosts
 * (see `fetchFromPortal`).
 */
export interface Receipt {
  bytes: Uint8Array;
  contentType: string;
  /** Where it came from: the receipt link, or the confirmation page itself. */
  url: string;
  kind: 'receipt_link' | 'confirmation_page';
}

const RECEIPT_LINK = /\b(receipt|acknowledg(e)?ment|download (a )?copy|print (the )?(receipt|acknowledg(e)?ment))\b/;

/**
 * Fetches the receipt a confirmation page links to, or else the confirmation page's own HTML
 * (as served, or as rendered when the portal will not serve it again).
 */
export async function fetchReceipt(page: Page, observation: Observation, profile: PortalProfile): Promise<{ receipt?: Receipt; notes: string[] }> {
  const notes: string[] = [];
  const link = observation.controls.find((c) => c.role === 'link' && c.href && RECEIPT_LINK.test(normaliseLabel(c.name)));
  if (link?.href) {
    const fetched = await fetchFromPortal(page, link.href, profile);
    if (fetched.ok) return { receipt: { bytes: fetched.bytes, contentType: fetched.contentType, url: fetched.url, kind: 'receipt_link' }, notes };
    notes.push(`receipt link ${link.label} not fetched: ${fetched.reason}`);
  }
  const fetched = await fetchFromPortal(page, page.url(), profile);
  if (fetched.ok && fetched.contentType.includes('html')) return { receipt: { bytes: fetched.bytes, contentType: fetched.contentType, url: fetched.url, kind: 'confirmation_page' }, notes };
  if (!fetched.ok) notes.push(`confirmation page not fetched again (${fetched.reason}); keeping it as rendered`);
  const html = await page.content();
  return { receipt: { bytes: Buffer.from(html, 'utf8'), contentType: 'text/html; charset=utf-8', url: page.url(), kind: 'confirmation_page' }, notes };
}

/** The file extension a receipt is kept under. */
export function receiptExtension(contentType: string): string {
  if (contentType.includes('html')) return 'html';
  if (contentType.includes('pdf')) return 'pdf';
  if (contentType.includes('json')) return 'json';
  if (contentType.includes('text/plain')) return 'txt';
  return 'bin';
}
