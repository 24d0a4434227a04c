import type { Locator, Page } from 'playwright-core';
import type { CaseFile } from '../../../src/shared/case-file';
import { normaliseName } from './resources';

/**
 * A label-matching form filler, as the agent's executor works: a control is filled with a case
 * field only when its accessible name (or its group's legend, for radios) matches the field key
 * or one of its aliases after normalising. Controls without any accessible name are reported
 * (the redesigned layout has a few on purpose) and filled by their input name.
 */

export interface SectionFill {
  filled: string[];
  /** Fields whose control had no accessible name. */
  unnamed: string[];
}

/** The accessible name of an element, read from Playwright's aria snapshot ("- textbox "Name": value"). */
export async function accessibleName(locator: Locator): Promise<string> {
  const snapshot = await locator.ariaSnapshot();
  const m = /^- [\w-]+(?: "((?:[^"\\]|\\.)*)")?/.exec(snapshot.trim());
  return m?.[1] ? (JSON.parse(`"${m[1]}"`) as string) : '';
}

function candidates(caseFile: CaseFile, key: string): Set<string> {
  return new Set([key, ...(caseFile.aliases[key] ?? [])].map(normaliseName));
}

export async function fillSection(page: Page, caseFile: CaseFile): Promise<SectionFill> {
  const result: SectionFill = { filled: [], unnamed: [] };
  const form = page.locator('form[action^="/apply/"]');
  // One round trip for what the section holds: input name → control kind.
  const present = new Map(
    await form.evaluate((el) =>
      [...el.querySelectorAll('input[name], select[name]')].map((c): [string, string] => [
        c.getAttribute('name') ?? '',
        c instanceof HTMLInputElement ? c.type : c.tagName.toLowerCase(),
      ]),
    ),
  );
  for (const [key, value] of Object.entries(caseFile.fields)) {
    const kind = present.get(key);
    if (!kind) continue;
    const first = form.locator(`[name="${key}"]`).first();
    const named = kind === 'radio' ? form.locator('fieldset', { has: page.locator(`input[name="${key}"]`) }).last() : first;
    const name = await accessibleName(named);
    if (!name) result.unnamed.push(key);
    else if (!candidates(caseFile, key).has(normaliseName(name))) {
      throw new Error(`field ${key}: the control is named "${name}", which matches neither the key nor an alias`);
    }
    if (kind === 'radio') await named.getByRole('radio', { name: String(value), exact: true }).check();
    else if (kind === 'checkbox') await first.setChecked(value === true);
    else if (kind === 'select') await first.selectOption({ label: String(value) });
    else await first.fill(String(value));
    result.filled.push(key);
  }
  for (const declaration of caseFile.declarations) {
    const box = form.getByRole('checkbox', { name: declaration });
    if ((await box.count()) > 0) await box.check();
  }
  return result;
}
