import type { Page } from 'playwright-core';
import { bringIntoView } from '../../../src/agent/act/into-view';
import { labAccount, type Lab, type PortalId } from '../../../lab/index';

/** Browser steps the lab tests share. */

export async function signIn(page: Page, lab: Lab, portal: PortalId, clientId: string): Promise<void> {
  const { username, password } = labAccount(clientId);
  if (!page.url().includes('/sign-in')) await page.goto(`${lab.origin(portal)}/sign-in`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  const posted = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/sign-in');
  // The CAPTCHA variant puts a cross-site frame above the button: scroll first (see into-view.ts).
  const button = page.getByRole('button', { name: 'Sign in' });
  await bringIntoView(button, 5_000);
  await button.click();
  await posted;
  await page.waitForLoadState();
}

/** Fails with the page's error summary when one is showing. */
export async function expectNoErrors(page: Page): Promise<void> {
  const alert = page.locator('.error-summary[role=alert]');
  if ((await alert.count()) > 0) throw new Error(`${page.url()}: ${await alert.innerText()}`);
}

/** Clicks the layout's "continue" control: a real button in the original, a div in the redesign. */
export async function continueSection(page: Page, layout: 'original' | 'redesigned'): Promise<void> {
  const navigated = page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame() });
  if (layout === 'original') await page.getByRole('button', { name: 'Save and continue' }).click();
  else await page.getByRole('button', { name: /^Next/ }).click();
  await navigated;
  await page.waitForLoadState();
}
