import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../src/agent/browser/chromium';
import { maskedScreenshot } from '../../../src/agent/observe/page-picture';
import { gateRequest, PageErrorLog, takePicture } from '../../../src/agent/observe/step-evidence';

/** The loop's step evidence in real Chromium: page errors as they happen, the after and full-page pictures. */
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 800, height: 600 } });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

const pngHeight = (png: Uint8Array) => new DataView(png.buffer, png.byteOffset, png.byteLength).getUint32(20);

describe('step evidence', () => {
  it('collects script errors, console errors and failed loads per step, and drains them', async () => {
    const log = new PageErrorLog().attach(context);
    const page = await context.newPage();
    await page.setContent(`<p>form</p><img src="http://127.0.0.1:9/missing.png"><script>console.error('postcode lookup failed'); setTimeout(() => { throw new TypeError('x is undefined'); }, 0);</script>`);
    await expect.poll(() => log['events'].length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    const events = log.take();
    expect(events.map((e) => e.type).sort()).toEqual(['console_error', 'load_failed', 'page_error']);
    expect(events.find((e) => e.type === 'page_error')?.message).toBe('TypeError: x is undefined');
    expect(events.find((e) => e.type === 'console_error')?.message).toBe('postcode lookup failed');
    expect(events.find((e) => e.type === 'load_failed')?.message).toMatch(/^GET http:\/\/127\.0\.0\.1:9\/missing\.png \(image\) did not load: net::ERR_/);
    expect(log.take()).toEqual([]);
    await page.close();
  }, 30_000);

  it('takes the after picture of the viewport and the whole page, password boxes masked, and answers a closed page', async () => {
    const page = await context.newPage();
    await page.setContent(`<body style="margin:0"><div style="height:2400px;background:linear-gradient(#fff,#036)">tall</div><input type="password" value="hunter2hunter2"></body>`);
    const after = await takePicture(page, 'after');
    expect(after.problem).toBeUndefined();
    expect(pngHeight(after.png!)).toBe(600);
    const whole = await takePicture(page, 'full page');
    expect(pngHeight(whole.png!)).toBeGreaterThan(2400);
    // A whole page cut at a height (the console's card cuts a runaway page).
    expect(pngHeight(await maskedScreenshot(page, { fullPage: true, maxHeight: 1000, timeout: 10_000 }))).toBe(1000);
    // The password box is masked: the picture differs from one taken without the mask.
    const unmasked = await page.screenshot({ type: 'png', fullPage: true });
    expect(Buffer.from(whole.png!).equals(unmasked)).toBe(false);
    await page.close();
    expect(await takePicture(page, 'after')).toEqual({ png: null, problem: 'after picture not taken: the page was closed' });
  }, 30_000);

  it('paints over password and code boxes in every frame and open shadow root, under a CSP too: no picture depends on what they hold', async () => {
    const page = await context.newPage();
    const boxes = `<input type="password" value="PW"><input autocomplete="one-time-code" value="OTP"><input type="text" value="NAME">`;
    const html = (pw: string, otp: string, name: string) => {
      const filled = boxes.replace('PW', pw).replace('OTP', otp).replace('NAME', name);
      // A portal's CSP that refuses inline styles does not stop the painting.
      return `<meta http-equiv="Content-Security-Policy" content="style-src 'none'"><body>${filled}
        <iframe style="width:600px;height:60px" srcdoc='${filled.replaceAll("'", '&#39;')}'></iframe>
        <div id="host"></div>
        <script>document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML = ${JSON.stringify(filled)};</script></body>`;
    };
    const picture = async (pw: string, otp: string, name: string, kind: 'after' | 'full page') => {
      await page.setContent(html(pw, otp, name));
      await page.frames()[1]!.waitForLoadState();
      return Buffer.from((await takePicture(page, kind)).png!);
    };
    for (const kind of ['after', 'full page'] as const) {
      const one = await picture('hunter2hunter2', '482913', 'Meera', kind);
      // Another password and code: the same picture, in the top frame, the inner frame and the shadow root alike.
      expect(one.equals(await picture('correct horse battery', '000000', 'Meera', kind))).toBe(true);
      // The picture still shows the page: another name (a box that is no secret) is another picture.
      expect(one.equals(await picture('hunter2hunter2', '482913', 'Meera Kulkarni', kind))).toBe(false);
    }
    // Nothing of the painting stays on the page the clerk sees, in any frame or shadow root.
    const sheets = () => page.evaluate(() => document.styleSheets.length + document.adoptedStyleSheets.length + document.querySelector('#host')!.shadowRoot!.adoptedStyleSheets.length);
    const before = await sheets();
    await takePicture(page, 'after');
    await expect.poll(sheets).toBe(before);
    expect(await page.frames()[1]!.evaluate(() => document.styleSheets.length + document.adoptedStyleSheets.length)).toBe(0);
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('input[type=password]')!).backgroundColor)).not.toBe('rgb(255, 0, 255)');
    // A focused box's blinking caret is hidden, as Playwright hides it: pictures of an unchanged page are equal.
    await page.focus('input[type=text]');
    const first = Buffer.from((await takePicture(page, 'after')).png!);
    for (let i = 0; i < 4; i++) {
      await page.waitForTimeout(150);
      expect(Buffer.from((await takePicture(page, 'after')).png!).equals(first)).toBe(true);
    }
    await page.close();
  }, 30_000);

  it('reads the gate’s judgements as the requests pane does', () => {
    const base = { method: 'POST', url: 'https://shops.lab.portal-desk.test/renewal/submit', rule: 'submit-path', detail: '', submission: true, step: 4 };
    expect(gateRequest({ ...base, type: 'commit_pre_approved' })).toEqual({ method: 'POST', url: base.url, outcome: 'sent', rule: 'commit-gate:submit-path' });
    expect(gateRequest({ ...base, type: 'commit_denied' }).outcome).toBe('denied');
    expect(gateRequest({ ...base, type: 'request_forbidden' }).outcome).toBe('refused');
  });
});
