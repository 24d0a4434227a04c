import type { Page } from 'playwright-core';
import type { ChallengeHosts } from '../guard/challenge-hosts';

const LOAD_MS = 15_000;

/**
 * Loads the CAPTCHA again once its hosts are open (the clerk holds the portal): until then the
 * host locks refused it, and its frame shows as a broken grey box. Each frame of the page whose
 * element names a challenge-host address (its `src`) is sent there again; only such addresses are
 * ever loaded, so the page cannot steer this anywhere else. A page with no such frame (its CAPTCHA
 * is drawn by a script from the challenge host, which was refused too) is reloaded when it came
 * from a GET; a page a form brought is not, since reloading it would send the form again.
 * Answers the step log's line; a failure is reported there, never thrown.
 */
export async function reloadChallenge(page: Page, hosts: ChallengeHosts): Promise<string> {
  const reloads: Promise<void>[] = [];
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) continue;
    const src = await frame
      .frameElement()
      .then((element) => element.getAttribute('src'))
      .catch(() => null);
    if (src === null) continue;
    const address = hosts.address(src, page.url());
    if (address === null) continue;
    reloads.push(frame.goto(address, { waitUntil: 'domcontentloaded', timeout: LOAD_MS }).then(() => undefined));
  }
  if (reloads.length > 0) {
    const failed = (await Promise.allSettled(reloads)).filter((r) => r.status === 'rejected').length;
    const what = `reloaded ${reloads.length} challenge frame${reloads.length === 1 ? '' : 's'}`;
    return failed === 0 ? what : `${what} (${failed} did not load)`;
  }
  if (!hosts.shownByGet(page)) return 'the page came from a form, so it was not reloaded (that would send the form again): the clerk reloads the CAPTCHA on the page if it shows one';
  try {
    await page.reload({ waitUntil: 'domcontentloaded', timeout: LOAD_MS });
    return 'reloaded the page (it came from a GET), so its CAPTCHA loads';
  } catch (err) {
    return `the page did not reload (${(err as Error).message.split('\n')[0]})`;
  }
}
