import type { Page } from 'playwright-core';
import type { Observation } from '../../shared/observation';

const CHALLENGE_FRAME = /recaptcha|hcaptcha|turnstile|challenges\.cloudflare|arkoselabs|funcaptcha/i;
const CHALLENGE_TEXT = /verify (that )?you are (a )?human|i['’]?m not a robot|are you a robot|complete the captcha|captcha|security check.*human/i;

/**
 * A CAPTCHA or "verify you are human" check. The run ends `blocked: bot_challenge` and hands
 * the page to the clerk: a bot check is never turned into a text prompt.
 */
export function detectBotChallenge(page: Page, observation: Observation): string | null {
  const frame = page.frames().find((f) => CHALLENGE_FRAME.test(f.url()) || CHALLENGE_FRAME.test(f.name()));
  if (frame) return `a CAPTCHA frame (${new URL(frame.url()).host || frame.name()})`;
  const host = observation.frameHosts.find((h) => CHALLENGE_FRAME.test(h));
  if (host) return `a CAPTCHA frame (${host})`;
  const control = observation.controls.find((c) => CHALLENGE_TEXT.test(c.name));
  if (control) return `a bot check ("${control.name}")`;
  const line = [observation.title, ...observation.headings].find((t) => CHALLENGE_TEXT.test(t));
  if (line) return `a bot check ("${line}")`;
  return null;
}
