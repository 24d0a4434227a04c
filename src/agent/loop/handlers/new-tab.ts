import type { Page } from 'playwright-core';
import { sha256Hex } from '../../../base/canonical-json';
import { errorText } from '../../../base/error-text';
import { isAllowedUrl } from '../../../shared/allowed-hosts';
import { newTabsOf } from '../../guard/watchdogs/popups';
import { proofOnPage, type DoneProof } from '../done-proof';
import { endRun, PASS } from '../outcomes';
import type { RunContext } from '../run-context';
import type { PortalHandler } from './portal-handler';

/** How long code waits for a followed tab's page to finish loading before it reads what is there. */
const TAB_LOAD_MS = 10_000;

/**
 * New tabs and windows the portal opened on its own addresses (a receipt, a confirmation shown
 * in a new tab): code follows each one the guard kept (`NewTabs`), reads it as it reads the
 * run's page, records what it was (title, address, size and sha256 of its HTML) and closes it;
 * the run goes on in its own page, and the model is never shown the tab. A confirmation in the
 * tab counts only with the same proof as on the page (`proofOnPage`: the profile's words and a
 * new application number visibly there, after an approved submission this run sent); then its
 * HTML is kept as the acknowledgement and the run ends done. Pop-ups to other hosts never reach
 * here: the guard closes them.
 */
export const newTabHandler: PortalHandler = {
  id: 'new-tab',
  async handle(_turn, run) {
    const tabs = (await newTabsOf(run.o.page.context())?.take()) ?? [];
    let proven: Extract<DoneProof, { ok: true }> | undefined;
    for (const tab of tabs) {
      try {
        const proof = await follow(tab, run);
        if (proof?.ok) proven ??= proof;
      } catch (err) {
        run.note('tab_followed', `A new tab the portal opened could not be read (${errorText(err).slice(0, 200)}); closed it`);
      } finally {
        await tab.close().catch(() => undefined);
      }
    }
    if (!proven) return PASS;
    return endRun(
      { status: 'done', reason: `Submitted: the portal showed the confirmation of ${proven.applicationNumber} in a new tab`, applicationNumber: proven.applicationNumber },
      { reasoning: 'The portal opened the confirmation in a new tab: code read it there, checked the proof as on a page, kept it and closed the tab.' },
    );
  },
};

/** Reads one tab, records it, and answers the proof of a confirmation in it (undefined: it left the portal's addresses). */
async function follow(tab: Page, run: RunContext): Promise<DoneProof | undefined> {
  await tab.waitForLoadState('load', { timeout: TAB_LOAD_MS }).catch(() => undefined);
  const url = tab.url();
  if (!isAllowedUrl(url, run.o.profile).ok) {
    run.note('popup_closed', `Closed a new tab that had gone to ${url.slice(0, 120)}, off the portal's addresses`);
    return undefined;
  }
  const read = await run.o.observer.read(tab);
  const html = Buffer.from(await tab.content(), 'utf8');
  const sha256 = sha256Hex(html);
  const title = read.observation.title.replace(/\s+/g, ' ').slice(0, 120);
  const proof = await proofOnPage(read, run, tab);
  const shows = proof.ok ? `it shows the confirmation of ${proof.applicationNumber}` : 'no proven confirmation in it';
  run.note('tab_followed', `Followed a new tab the portal opened: “${title}” at ${url.slice(0, 200)}, ${html.byteLength} bytes of HTML, sha256 ${sha256}; ${shows}; closed it, the run goes on in its own page`);
  if (proof.ok && !run.state.receiptKept) await keep(run, html, sha256, url, proof.applicationNumber);
  return proof;
}

/** The confirmation tab's HTML as the acknowledgement of the submission (never when it holds a secret). */
async function keep(run: RunContext, html: Buffer, sha256: string, url: string, applicationNumber: string): Promise<void> {
  run.state.receiptKept = true;
  if (run.secrets.all().some((s) => html.toString('utf8').includes(s))) {
    run.note('receipt', `Confirmation tab sha256 ${sha256} (${html.byteLength} bytes) holds a secret: hash recorded, bytes not kept`);
    return;
  }
  const where = run.o.receipts
    ? await run.o.receipts.keep({ bytes: html, contentType: 'text/html; charset=utf-8', url, kind: 'confirmation_page', sha256, runId: run.o.runId, applicationNumber })
    : 'not kept (no receipt folder)';
  run.note('receipt', `Acknowledgement of ${applicationNumber}: confirmation page in a new tab ${url}, text/html, sha256 ${sha256}, ${html.byteLength} bytes, kept at ${where}`);
}
