import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../../src/agent/browser/chromium';
import { takePicture } from '../../../src/agent/observe/step-evidence';

const NAMES = { hindi: 'सुनीता शर्मा', tamil: 'ஸ்ரீனிவாஸ் ஐயர்' };
/** What a name looks like when no installed font has its script: one missing-glyph box a character (private-use code points no font has). */
const boxes = (text: string) => [...text].map((c) => (c === ' ' ? ' ' : '\uE000')).join('');

/** The audit picture (`takePicture`, the whole page as the clerk approved it) of a page showing `text`, as the portal and the console would. */
async function pictureOf(page: Page, text: string): Promise<Buffer> {
  await page.setContent(`<body style="margin:0;background:#fff"><div style="padding:24px;font:32px system-ui, 'Noto Sans', sans-serif;color:#000">Applicant: <span>${text}</span></div></body>`);
  const { png, problem } = await takePicture(page, 'full page');
  expect(problem).toBeUndefined();
  return Buffer.from(png!);
}

/** Pixels compared in Chromium's own canvas: how many are inked in `a`, and how many differ between `a` and `b`. */
async function compare(page: Page, a: Buffer, b: Buffer): Promise<{ inkedA: number; inkedB: number; differ: number; total: number }> {
  return page.evaluate(
    async ([pa, pb]) => {
      const load = async (b64: string) => {
        const img = new Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        const canvas = document.createElement('canvas');
        canvas.width = img.width;
        canvas.height = img.height;
        const ctx = canvas.getContext('2d')!;
        ctx.drawImage(img, 0, 0);
        return ctx.getImageData(0, 0, img.width, img.height).data;
      };
      const [x, y] = [await load(pa!), await load(pb!)];
      let inkedA = 0;
      let inkedB = 0;
      let differ = 0;
      for (let i = 0; i < x.length; i += 4) {
        const ink = (d: Uint8ClampedArray) => d[i]! + d[i + 1]! + d[i + 2]! < 600;
        if (ink(x)) inkedA++;
        if (ink(y)) inkedB++;
        if (Math.abs(x[i]! - y[i]!) + Math.abs(x[i + 1]! - y[i + 1]!) + Math.abs(x[i + 2]! - y[i + 2]!) > 96) differ++;
      }
      return { inkedA, inkedB, differ, total: x.length / 4 };
    },
    [a.toString('base64'), b.toString('base64')],
  );
}

/**
 * Indic scripts (issue 28): a Hindi or Tamil case name in the picture the clerk approves (kept as
 * audit evidence) is drawn in its script, not as empty boxes. Real Chromium as runs launch it;
 * the pictures are compared by their pixels against a rendering of missing-glyph boxes, not by text.
 * Needs Debian's fonts-noto-core (.ci/run installs it).
 */
describe('Indic names in the approval picture', { timeout: 180_000 }, () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  });
  afterAll(() => browser?.close());

  for (const [script, name] of Object.entries(NAMES)) {
    it(`a ${script} name is drawn in its script, not as boxes`, async () => {
      const shown = await pictureOf(page, name);
      const asBoxes = await pictureOf(page, boxes(name));
      const blank = await pictureOf(page, '');
      mkdirSync('/tmp/clerk-shots', { recursive: true });
      writeFileSync(`/tmp/clerk-shots/${script}-name.png`, shown);
      writeFileSync(`/tmp/clerk-shots/${script}-boxes.png`, asBoxes);
      const vsBoxes = await compare(page, shown, asBoxes);
      const vsBlank = await compare(page, shown, blank);
      // The name has ink of its own beyond "Applicant:" ...
      expect(vsBlank.inkedA - vsBlank.inkedB).toBeGreaterThan(400);
      // ... and it is not the boxes: most of the name's pixels differ from the missing-glyph rendering.
      const nameInk = vsBlank.inkedA - vsBlank.inkedB;
      expect(vsBoxes.differ).toBeGreaterThan(nameInk * 0.5);
    });
  }
});
