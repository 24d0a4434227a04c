import { portalNotAnswering } from '../../portal/portal-outage';
import { endRun, handled, PASS } from '../outcomes';
import type { RunContext } from '../run-context';
import type { PortalHandler } from './portal-handler';

/** How often and how long a run waits for a portal that stopped answering before it stops, resumable. */
const OUTAGE_RETRIES = 4;
const OUTAGE_WAIT_MS = 5_000;

/** Per run: the last address that loaded (to try again), and the tries since the portal stopped answering. */
const outages = new WeakMap<RunContext, { lastGood?: string; tries: number }>();

/**
 * A page that failed to load (the browser's error page, or the portal's gateway saying 502/503/504)
 * is the portal not answering, reported with its network error. The run waits and tries the
 * address again a few times; then it stops `interrupted` (nothing lost, resumable), never as the
 * planner's give-up. The model is not asked about an error page.
 */
export const portalOutageHandler: PortalHandler = {
  id: 'portal-outage',
  async handle({ observation }, run) {
    const seen = outages.get(run) ?? { tries: 0 };
    outages.set(run, seen);
    const error = portalNotAnswering(run.o.page, observation);
    if (!error) {
      if (seen.tries > 0) run.note('portal_back', `The portal answers again after ${seen.tries} tr${seen.tries === 1 ? 'y' : 'ies'}`);
      seen.tries = 0;
      seen.lastGood = observation.url;
      return PASS;
    }
    const address = seen.lastGood ?? run.o.profile.startUrl;
    if (seen.tries >= OUTAGE_RETRIES) {
      run.note('portal_not_answering', `The portal is still not answering (${error}) after ${seen.tries} tries; the run stops here, resumable`);
      return endRun(
        { status: 'interrupted', reason: `The portal is not answering (${error} at ${address}); nothing was lost. Resume the run when the portal is back.` },
        { reasoning: 'The portal did not answer: code waited and tried again; the model was not asked about an error page.' },
      );
    }
    seen.tries += 1;
    const waitS = Math.round(OUTAGE_WAIT_MS / 1000);
    run.note('portal_not_answering', `The portal is not answering (${error}); waiting ${waitS} s, then opening ${address} again (try ${seen.tries} of ${OUTAGE_RETRIES})`);
    await run.setStatus('running', `The portal is not answering (${error}); trying again in ${waitS} s (try ${seen.tries} of ${OUTAGE_RETRIES})`);
    await run.wait(OUTAGE_WAIT_MS);
    await run.goto(address).catch((err: unknown) => run.note('navigation', `${address} did not load again (${String(err).slice(0, 200)})`));
    await run.setStatus('running');
    return handled(`The portal did not answer (${error}): code waited and opened ${address} again; the model was not asked about an error page.`);
  },
};
