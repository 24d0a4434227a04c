import type { Page } from 'playwright-core';

/**
 * The synthetic stress page: one long form of exactly `controls` controls (default 300), the
 * mix a big government form has: labelled text fields, checkboxes, yes/no radio questions in
 * fieldsets, selects, help links inside prose, fields named only by a nearby span with a row
 * button, and a submit button last. Static HTML (no script), loaded with `setContent`.
 */
export const SYNTHETIC_CONTROLS = 300;

export function syntheticFormHtml(controls = SYNTHETIC_CONTROLS): string {
  const rows: string[] = [];
  let count = 0;
  for (let i = 0; count < controls - 1; i++) {
    const left = controls - 1 - count;
    const k = i % 6;
    if (k === 0 || left < 2) {
      rows.push(`<div><label for="t${i}">Field ${i}</label> <input id="t${i}" name="t${i}" value="v${i}"${i % 12 === 0 ? ' required' : ''}></div>`);
      count += 1;
    } else if (k === 1) {
      rows.push(`<div><label><input type="checkbox" name="c${i}"> Option ${i}</label></div>`);
      count += 1;
    } else if (k === 2) {
      rows.push(`<fieldset><legend>Question ${i}</legend><label><input type="radio" name="r${i}" value="yes"> Yes</label> <label><input type="radio" name="r${i}" value="no"> No</label></fieldset>`);
      count += 2;
    } else if (k === 3) {
      rows.push(`<div><label for="s${i}">Pick ${i}</label> <select id="s${i}" name="s${i}"><option>One</option><option>Two</option><option>Three</option></select></div>`);
      count += 1;
    } else if (k === 4) {
      rows.push(`<p>Paragraph ${i} explains what the next questions are for and which document to keep at hand. <a href="/help/${i}">Help on question ${i}</a></p>`);
      count += 1;
    } else {
      rows.push(`<div><span>Label ${i}</span> <input name="u${i}"> <button type="button">Check ${i}</button></div>`);
      count += 2;
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Synthetic ${controls}-control form</title></head>
<body><main><h1>Application form</h1><p>Step 1 of 1: Everything at once</p>
<form action="/submit" method="post" novalidate>
${rows.join('\n')}
<button type="submit">Save and continue</button>
</form></main></body></html>`;
}

/** Loads the synthetic page into `page`. */
export async function openSyntheticPage(page: Page, controls = SYNTHETIC_CONTROLS): Promise<void> {
  await page.setContent(syntheticFormHtml(controls), { waitUntil: 'load' });
}
