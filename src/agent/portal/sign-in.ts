import type { Observation } from '../../shared/observation';
import type { PortalProfile } from '../../shared/portal-profile';
import { normaliseLabel } from '../decide/rules/field-names';
import type { PageRead } from '../observe/page-read';
import type { Credentials } from '../../shared/credentials';

/** A sign-in page: it has a password field, or its URL is the profile's sign-in URL. */
export function isSignInPage(observation: Observation, profile: PortalProfile): boolean {
  if (observation.hasPasswordField) return true;
  const marker = profile.signIn.urlContains;
  return marker !== undefined && new URL(observation.url).pathname.includes(marker);
}

export interface SignInResult {
  ok: boolean;
  /** For the step log; never contains the password. */
  message: string;
}

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
  await userLocator.fill(credentials.username, { timeout: 5_000 });
  await passwordLocator.fill(credentials.password, { timeout: 5_000 });
  await submitLocator.click({ timeout: 5_000 });
  await submitLocator.page().waitForLoadState('domcontentloaded', { timeout: 15_000 });
  return { ok: true, message: `Signed in by code as ${credentials.username}` };
}
