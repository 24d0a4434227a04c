import type { Browser, Page } from 'playwright-core';
import { labAccount, PORTAL_IDS, PORTALS, type Lab, type LabLayout, type PortalId } from '..';
import { startPermitsPortal } from '../permits/server';

/**
 * The lab's real form pages for the observation measurements: every section of each portal's
 * form, in the original and the redesigned layout (3 portals × 4 + 3 sections = 21 pages), each
 * opened signed in, as a clerk's browser would show it. `quick` keeps the first section of each
 * portal in each layout (6 pages). Then one widget-heavy page of the trade-permits portal
 * (lab/permits, its own server; the lab's resolver sends every name to the loopback): its applicant
 * step, with a calendar, a three-box date, an autocomplete and a select2-style box.
 */

export interface LabPage {
  /** `shops/original/business-address` */
  name: string;
  portal: PortalId | 'permits';
  layout: LabLayout;
  page: Page;
}

const LAYOUTS: readonly LabLayout[] = ['original', 'redesigned'];

/** Yields each page once it is loaded; the same tab moves on to the next section after the caller is done with it. */
export async function* labPages(lab: Lab, browser: Browser, options: { quick: boolean }): AsyncGenerator<LabPage> {
  for (const layout of LAYOUTS) {
    const clientId = `bench-pages-${layout}`;
    lab.configure(clientId, { layout });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      for (const portal of PORTAL_IDS) {
        const page = await context.newPage();
        await signIn(page, lab.origin(portal), clientId);
        const sections = PORTALS[portal].sections[layout];
        for (const section of options.quick ? sections.slice(0, 1) : sections) {
          await page.goto(`${lab.origin(portal)}/apply/${section.slug}`, { waitUntil: 'load' });
          yield { name: `${portal}/${layout}/${section.slug}`, portal, layout, page };
        }
        await page.close();
      }
    } finally {
      await context.close().catch(() => undefined);
    }
  }
  const permits = await startPermitsPortal();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto(`${permits.origin}/apply/applicant`, { waitUntil: 'load' });
    yield { name: 'permits/widgets/applicant', portal: 'permits', layout: 'original', page };
  } finally {
    await context.close().catch(() => undefined);
    await permits.stop();
  }
}

async function signIn(page: Page, origin: string, clientId: string): Promise<void> {
  const account = labAccount(clientId);
  await page.goto(`${origin}/sign-in`, { waitUntil: 'load' });
  await page.getByLabel('Username').fill(account.username);
  await page.getByLabel('Password').fill(account.password);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/sign-in')), page.getByRole('button', { name: 'Sign in' }).click()]);
}
