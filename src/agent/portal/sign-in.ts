import type { Observation } from '../../shared/observation';
import type { PortalProfile } from '../../shared/portal-profile';
import { normaliseLabel } from '../decide/rules/field-names';
import type { PageRead } from '../observe/page-read';
import type { Credentials } from '../../shared/credentials';
import { errorText } from '../../base/error-text';
import { bringIntoView } from '../act/into-view';

/** A sign-in page: it has a password field, or its URL is the profile's sign-in URL. */
export function isSignInPage(observation: Observation, profile: PortalProfile): boolean {
  if (observation.hasPasswordField) return true;
  const marker = profile.signIn.urlContains;
  return marker !== undefined && new URL(observation.url).pathname.includes(marker);
}

interface SignInResult {
  ok: boolean;
  /** For the step log; never contains the password. */
  message: string;
  /** The page did not answer in time: look again instead of giving up (the sign-in may have gone through). */
  retry?: boolean;
}

/** Sign-in is code's own action: generous timeouts, a slow portal is not a wrong login. */
const FILL_TIMEOUT_MS = 10_000;
const CLICK_TIMEOUT_MS = 20_000;

/**
 * Signs in by code from stored credentials. The planner is paused while this runs and
 * never sees the credentials; the password is typed straight into the password field.
 */
export async function signIn(read: PageRead, profile: PortalProfile, credentials: Credentials): Promise<SignInResult> {
  const controls = read.observation.controls;
  const wantedUser = normaliseLabel(profile.signIn.usernameLabel);
  const password = controls.find((c) => c.inputType === 'password');
  const username =
    controls.find((c) => c.role === 'textbox' && c.inputType !== 'password' && normaliseLabel(c.name) === wantedUser) ??
    controls.find((c) => c.role === 'textbox' && c.inputType !== 'password' && /user|login|email|id/.test(normaliseLabel(c.name)));
  const wantedSubmit = normaliseLabel(profile.signIn.submitLabel);
  const submit =
    controls.find((c) => c.role === 'button' && normaliseLabel(c.name) === wantedSubmit) ??
    controls.find((c) => c.role === 'button' && /\b(sign in|log in|login)\b/.test(normaliseLabel(c.name)));
  if (!password || !username || !submit) {
    const missing = [!username && 'username field', !password && 'password field', !submit && 'sign-in button'].filter(Boolean);
    return { ok: false, message: `Sign-in page not understood: no ${missing.join(', ')} found` };
  }
  const [userLocator, passwordLocator, submitLocator] = await Promise.all([read.resolve(username.ref), read.resolve(password.ref), read.resolve(submit.ref)]);
  if (!userLocator || !passwordLocator || !submitLocator) return { ok: false, message: 'The sign-in form changed while signing in' };
  try {
    await userLocator.fill(credentials.username, { timeout: FILL_TIMEOUT_MS });
    await passwordLocator.fill(credentials.password, { timeout: FILL_TIMEOUT_MS });
    await bringIntoView(submitLocator, CLICK_TIMEOUT_MS);
    await submitLocator.click({ timeout: CLICK_TIMEOUT_MS });
    await submitLocator.page().waitForLoadState('domcontentloaded', { timeout: CLICK_TIMEOUT_MS });
  } catch (err) {
    // Playwright's messages name the element, never the value typed.
    return { ok: false, retry: true, message: `The sign-in page did not answer in time (${errorText(err)}); looking again` };
  }
  return { ok: true, message: `Signed in by code as ${credentials.username}` };
}
