import { beforeEach, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { CAPTCHA_HOST, PHONE_HOST } from '../../lab/index';
import { continueSection, signIn } from './support/browse';
import { useLabBrowser } from '../support/lab-browser';

/** The variants in a real browser: what an agent driving Chromium runs into. */

const live = useLabBrowser();
let context: BrowserContext;
let page: Page;
beforeEach(async (test) => {
  live.lab.reset();
  await context?.close();
  context = await live.browser.newContext();
  context.setDefaultTimeout(15_000);
  page = await context.newPage();
  test.onTestFinished(() => context.close());
});

async function startForm(portal: 'shops' | 'power' | 'tax', clientId: string, startLink = 'Start a new application'): Promise<void> {
  await page.goto(`${live.lab.origin(portal)}/`);
  await signIn(page, live.lab, portal, clientId);
  await page.getByRole('link', { name: startLink }).click();
}

describe('validation', () => {
  it('shows an error summary and marks the blank required fields invalid (original)', async () => {
    await startForm('shops', 'blank-original');
    await continueSection(page, 'original');
    const summary = page.getByRole('alert');
    await expect(summary.innerText()).resolves.toContain('There is a problem');
    await expect(summary.innerText()).resolves.toContain('Enter registration number');
    const input = page.getByRole('textbox', { name: 'Registration number' });
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await input.getAttribute('aria-describedby'))!.split(' ');
    const messages = await Promise.all(describedBy.map((id) => page.locator(`#${id}`).innerText()));
    expect(messages).toContain('Enter registration number');
    expect(await page.getByRole('radio', { name: 'Shop', exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('textbox', { name: 'Business name' }).getAttribute('aria-invalid')).toBe('true');
  });

  it('does the same on the redesigned layout, in its own words', async () => {
    live.lab.configure('blank-redesigned', { layout: 'redesigned' });
    await startForm('shops', 'blank-redesigned', 'Start renewal');
    await page.getByRole('textbox', { name: 'Employer or owner full name' }).fill('Asha Rao');
    await continueSection(page, 'redesigned');
    await expect(page.getByRole('alert').innerText()).resolves.toContain('Enter name of establishment');
    expect(await page.getByRole('textbox', { name: 'Name of establishment' }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('textbox', { name: 'Employer or owner full name' }).getAttribute('aria-invalid')).toBeNull();
    expect(await page.getByRole('textbox', { name: 'Employer or owner full name' }).inputValue()).toBe('Asha Rao');
  });
});

describe('drafts', () => {
  it('saves a draft that a later sign-in continues', async () => {
    await startForm('power', 'draft-user');
    await page.getByRole('textbox', { name: 'Consumer number' }).fill('210413578902');
    await page.getByRole('radio', { name: 'Commercial' }).check();
    await page.getByRole('button', { name: 'Save draft' }).click();
    const status = await page.getByRole('status').innerText();
    const draftId = /Draft saved\. Draft ID (D-\d+)/.exec(status)?.[1];
    expect(draftId).toBeDefined();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, live.lab, 'power', 'draft-user');
    await expect(page.getByText(draftId!).count()).resolves.toBeGreaterThan(0);
    await page.getByRole('link', { name: 'Continue your saved draft' }).click();
    expect(await page.getByRole('textbox', { name: 'Consumer number' }).inputValue()).toBe('210413578902');
    expect(await page.getByRole('radio', { name: 'Commercial' }).isChecked()).toBe(true);
  });

  it('"Reset form" wipes the answers and the draft, and is counted', async () => {
    live.lab.configure('resetter', { layout: 'redesigned' });
    await startForm('tax', 'resetter', 'Start a return');
    await page.getByRole('combobox', { name: 'Month' }).selectOption({ label: 'October 2026' });
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect(page.getByRole('status').innerText()).resolves.toContain('Draft saved');
    expect(live.lab.resets('resetter')).toBe(0);
    await page.getByRole('button', { name: 'Reset form' }).click();
    await expect(page.getByRole('status').innerText()).resolves.toContain('The form has been reset');
    expect(live.lab.resets('resetter')).toBe(1);
    expect(await page.getByRole('combobox', { name: 'Month' }).inputValue()).toBe('');
    await page.goto(`${live.lab.origin('tax')}/`);
    expect(await page.getByRole('link', { name: 'Continue your saved draft' }).count()).toBe(0);
  });

  it('has the redesigned layout’s flaws: an unlabelled field, a div for Next, an icon-only button', async () => {
    live.lab.configure('flaws', { layout: 'redesigned' });
    await startForm('shops', 'flaws', 'Start renewal');
    await expect(page.locator('input[name="number_of_employees"]').ariaSnapshot()).resolves.toBe('- textbox');
    expect(await page.locator('div[role="button"]', { hasText: 'Next' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Previous section' }).innerText()).toBe('');
    expect(await page.getByRole('navigation', { name: 'Application sections' }).count()).toBe(1);
  });
});

describe('one-time code at sign-in', () => {
  it('asks for the code sent to the phone; a wrong one is refused', async () => {
    live.lab.configure('otp-browser', { otp: 'signin' });
    await page.goto(`${live.lab.origin('shops')}/`);
    await signIn(page, live.lab, 'shops', 'otp-browser');
    const codeBox = page.getByRole('textbox', { name: 'Verification code' });
    expect(await codeBox.getAttribute('autocomplete')).toBe('one-time-code');
    const code = live.lab.latestOtp('otp-browser')!;
    await codeBox.fill(code === '123456' ? '654321' : '123456');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('alert').innerText()).resolves.toContain('The verification code is incorrect');
    const phone = await context.newPage();
    await phone.goto(`${live.lab.originOf(PHONE_HOST)}/`);
    await expect(phone.getByText(code).count()).resolves.toBe(1);
    await page.getByRole('textbox', { name: 'Verification code' }).fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('link', { name: 'Start a new application' }).count()).resolves.toBe(1);
  });
});

describe('a register check that fails once', () => {
  it('rejects the field on the first post and empties it; the value typed again passes', async () => {
    live.lab.configure('pan-lookup', { rejectFieldOnce: 'owner_pan' });
    await startForm('shops', 'pan-lookup');
    await page.goto(`${live.lab.origin('shops')}/apply/owner`);
    const pan = page.getByRole('textbox', { name: 'Owner PAN' });
    await page.getByRole('textbox', { name: 'Owner name' }).fill('Asha Rao');
    await pan.fill('ABCPR1234K');
    await page.getByRole('textbox', { name: 'Owner mobile' }).fill('9876543210');
    await page.getByRole('checkbox', { name: 'Same as business address' }).check();
    await continueSection(page, 'original');
    await expect(page.getByRole('alert').innerText()).resolves.toBe('There is a problem\nOwner PAN could not be verified just now. Enter it again.');
    expect(new URL(page.url()).pathname).toBe('/apply/owner');
    expect(await pan.getAttribute('aria-invalid')).toBe('true');
    expect(await pan.inputValue()).toBe('');
    expect(await page.getByRole('textbox', { name: 'Owner name' }).inputValue()).toBe('Asha Rao');
    await pan.fill('ABCPR1234K');
    await continueSection(page, 'original');
    expect(new URL(page.url()).pathname).toBe('/apply/renewal');
  });
});

describe('session expiry', () => {
  it('sends the user back to sign in with a message after N requests', async () => {
    live.lab.configure('expiring', { expireSessionAfterRequests: 3 });
    await startForm('shops', 'expiring'); // GET /, GET /apply/start, GET /apply/establishment
    await page.getByRole('textbox', { name: 'Business name' }).fill('Lost Stores');
    await continueSection(page, 'original');
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await expect(page.getByRole('alert').innerText()).resolves.toContain('Your session has expired. Please sign in again.');
    await signIn(page, live.lab, 'shops', 'expiring');
    await expect(page.getByRole('link', { name: 'Start a new application' }).count()).resolves.toBe(1);
  });
});

describe('captcha', () => {
  it('shows a reCAPTCHA frame at sign-in that automation cannot pass', async () => {
    live.lab.configure('bot', { captcha: 'signin' });
    await page.goto(`${live.lab.origin('power')}/sign-in`);
    const frameElement = page.locator('iframe[title="reCAPTCHA"]');
    expect(new URL((await frameElement.getAttribute('src'))!).hostname).toBe(CAPTCHA_HOST);
    await signIn(page, live.lab, 'power', 'bot');
    await expect(page.getByRole('alert').innerText()).resolves.toContain('not a robot');
    const frame = page.frameLocator('iframe[title="reCAPTCHA"]');
    await frame.getByRole('checkbox', { name: "I'm not a robot" }).click();
    await frame.getByRole('button', { name: 'Image 5' }).click();
    await frame.getByRole('button', { name: 'Verify' }).click();
    await expect(frame.getByRole('alert').innerText()).resolves.toBe('Please try again.');
    await signIn(page, live.lab, 'power', 'bot');
    await expect(page.getByRole('alert').innerText()).resolves.toContain('not a robot');
    expect(new URL(page.url()).pathname).toBe('/sign-in');
  });
});

describe('overlays', () => {
  it('a cookie banner blocks the page until it is answered', async () => {
    live.lab.configure('cookies', { cookieBanner: true });
    await page.goto(`${live.lab.origin('tax')}/sign-in`);
    const error = await page
      .getByRole('button', { name: 'Sign in' })
      .click({ timeout: 800 })
      .then(() => null)
      .catch((e: Error) => e);
    expect(error?.message).toMatch(/intercepts pointer events|Timeout/);
    await page.getByRole('button', { name: 'Reject non-essential' }).click();
    expect(await page.locator('#cookie-overlay').count()).toBe(0);
    await signIn(page, live.lab, 'tax', 'cookies');
    await expect(page.getByRole('link', { name: 'Start a new application' }).count()).resolves.toBe(1);
  });

  it('a survey dialog appears once on the second section', async () => {
    live.lab.configure('surveyed', { surveyPopup: true });
    await startForm('shops', 'surveyed');
    expect(await page.getByRole('dialog', { name: 'Quick survey' }).count()).toBe(0);
    await page.goto(`${live.lab.origin('shops')}/apply/business-address`);
    await expect(page.getByRole('dialog', { name: 'Quick survey' }).count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'No thanks' }).click();
    expect(await page.getByRole('dialog', { name: 'Quick survey' }).count()).toBe(0);
    await page.getByRole('textbox', { name: 'Business city' }).fill('Mysuru');
    await page.reload();
    expect(await page.getByRole('dialog', { name: 'Quick survey' }).count()).toBe(0);
  });
});

describe('attacker hosts', () => {
  it('counts what the browser sends to any other host', async () => {
    await page.goto(`${live.lab.originOf('login-portal.example')}/steal?who=me`);
    expect(live.lab.attackerRequests().filter((r) => r.host === 'login-portal.example').map((r) => r.path)).toContain('/steal?who=me');
  });
});
