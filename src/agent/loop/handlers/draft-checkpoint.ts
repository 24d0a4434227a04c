import type { Action } from '../../../shared/action';
import { executeAction } from '../../act/executor';
import { checkAction } from '../../guard/guard';
import { findSaveDraftControl, sectionKey } from '../../portal/draft';
import { handled, PASS } from '../outcomes';
import type { PortalHandler } from './portal-handler';

/**
 * A checkpoint: as a new form section opens, code presses the portal's "Save draft" so that
 * every section done so far survives a lost session. Once per section in each life of the run.
 */
export const draftCheckpointHandler: PortalHandler = {
  id: 'draft-checkpoint',
  async handle({ read }, run) {
    const observation = read.observation;
    const key = sectionKey(observation);
    const checkpoints = run.state.checkpoints;
    if (!key || !observation.flowStep || checkpoints.has(key) || observation.errors.length > 0) return PASS;
    if (run.progress.current.sectionsDone.length === 0 || run.progress.current.applicationNumber) return PASS;
    const save = findSaveDraftControl(observation);
    if (!save) return PASS;
    checkpoints.add(key);
    const action: Action = { type: 'click', ref: save.ref };
    const verdict = checkAction(action, run.guardContext(read));
    if (verdict.verdict !== 'allow') return PASS;
    const outcome = await run.asCode(`save the draft with ${save.label}`, () => executeAction(run.o.page, read, action));
    run.note('draft_checkpoint', outcome.status === 'done' ? `Saved the draft as "${key}" opened` : `Saving the draft failed: ${outcome.message ?? outcome.status}`);
    return handled('A new section opened: code saved the draft first, so a lost session resumes from here.', [{ action, element: save.label, verdict, outcome }]);
  },
};
