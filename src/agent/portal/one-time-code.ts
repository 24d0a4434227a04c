import type { Control, Observation } from '../../shared/observation';
import type { PortalProfile } from '../../shared/portal-profile';
import { normaliseLabel } from '../decide/rules/field-names';
import type { PageRead } from '../observe/page-read';
import { errorText } from '../../base/error-text';
import { bringIntoView } from '../act/into-view';

/** The field a one-time code goes into, when the page asks for one. */
export function findOneTimeCodeField(observation: Observation, profile: PortalProfile): Control | undefined {
  if (observation.hasPasswordField) return undefined;
  const words = profile.otp.words.map(normaliseLabel);
  return observation.controls.find((c) => {
    if (c.role !== 'textbox' && c.role !== 'spinbutton') return false;
    const name = normaliseLabel(c.name);
    return words.some((w) => new RegExp(`\\b${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(name));
  });
}

/** Types the clerk's code into the field and presses the page's verify button. The code is never logged. */
export async function enterOneTimeCode(read: PageRead, field: Control, code: string): Promise<{ ok: boolean; message: string }> {
  const button = read.observation.controls.find((c) => c.role === 'button' && /\b(verify|continue|confirm|submit)\b/.test(normaliseLabel(c.name)));
  const [input, press] = await Promise.all([read.resolve(field.ref), button ? read.resolve(button.ref) : Promise.resolve(null)]);
  if (!input) return { ok: false, message: 'The code field disappeared before the code could be typed' };
  try {
    await input.fill(code, { timeout: 10_000 });
    if (press) {
      await bringIntoView(press, 20_000);
      await press.click({ timeout: 20_000 });
    } else await input.press('Enter', { timeout: 10_000 });
    await input.page().waitForLoadState('domcontentloaded', { timeout: 20_000 });
  } catch (err) {
    return { ok: false, message: `The code page did not answer in time (${errorText(err)}); looking again` };
  }
  return { ok: true, message: `Code typed by code from the clerk: ${maskCode(code)}` };
}

export function maskCode(code: string): string {
  return '•'.repeat(Math.max(4, code.length));
}
