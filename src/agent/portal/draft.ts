import type { Control, Observation } from '../../shared/observation';
import { normaliseLabel } from '../decide/rules/field-names';

/**
 * Saved drafts: the portal's own way to keep answers across a lost session. Code saves the
 * draft as each new section opens (a checkpoint holding every section done so far), so a run
 * that is signed out mid-form reopens that draft instead of starting a new application.
 */

const SAVE_DRAFT = /^save (as |the |your )?draft$/;

/** The page's "Save draft" button, when it has one. */
export function findSaveDraftControl(observation: Observation): Control | undefined {
  return observation.controls.find((c) => (c.role === 'button' || c.role === 'link') && !c.disabled && SAVE_DRAFT.test(normaliseLabel(c.name)));
}

/** A name for the form section the page shows (the checkpoint key). */
export function sectionKey(observation: Observation): string | null {
  return observation.flowStep ?? observation.headings[0] ?? null;
}
