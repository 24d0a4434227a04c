import type { Page } from 'playwright-core';
import { pageBlock } from '../../src/agent/decide/anthropic/page-block';
import { collapse, CONTROL_ROLES, indexTree, isAriaTree, NAME_FROM_CONTENT, nodeText } from '../../src/agent/observe/aria-tree';
import type { LivePageRead, PageObserver } from '../../src/agent/observe/observer';
import type { Observation } from '../../src/shared/observation';
import { round } from './stats';
import { countPieces, estimateTokens } from './tokens';

/**
 * Observation size: the page block the model is sent (`pageBlock(observation)`, the Anthropic
 * planner's rendering, untrusted-block delimiters included) against the full ai snapshot
 * (`page.ariaSnapshot({ mode: 'ai' })`, YAML) and the raw HTML (`page.content()`), in tokens
 * (chars / 4; BPE-like pieces as a cross-check, see tokens.ts).
 *
 * Labelled controls kept: every node of the ai snapshot with a control role and a name (its
 * accessible name, or for roles named by their content, that content) must be among the
 * observation's controls. Matched by playwright's aria ref, which stays with its element across
 * snapshots, so a name the observer improved (a placeholder replaced by the label beside it)
 * still counts as the same control.
 */

export interface ObservationSize {
  page: string;
  kind: 'lab' | 'synthetic';
  observationTokens: number;
  snapshotTokens: number;
  htmlTokens: number;
  observationPieces: number;
  snapshotPieces: number;
  htmlPieces: number;
  /** observationTokens / snapshotTokens. */
  ofSnapshot: number;
  /** observationTokens / htmlTokens. */
  ofHtml: number;
  /** Labelled controls in the ai snapshot. */
  labelled: number;
  /** Of those, how many the observation lists. */
  kept: number;
  /** `role "name"` of the labelled controls the observation left out (the first 10). */
  missing: string[];
  /** Controls the observation lists, and those its cap left out (it says how many). */
  listed: number;
  omitted: number;
}

export interface SizedRead {
  size: ObservationSize;
  /** The observation measured, for the store measurements (a real page's read). */
  observation: Observation;
}

export async function measureObservationSize(page: Page, name: string, kind: ObservationSize['kind'], observer: PageObserver): Promise<SizedRead> {
  const snapshot = await page.ariaSnapshot({ mode: 'ai' });
  const tree = await page.ariaSnapshotJSON({ mode: 'ai' });
  const html = await page.content();
  const read = await observer.read(page);
  if (!isAriaTree(tree)) throw new Error('The ai snapshot JSON came back in an unexpected shape');

  const keptRefs = keptAriaRefs(read);
  const labelled = labelledControls(tree);
  const missing = labelled.filter((c) => !keptRefs.has(c.ref)).map((c) => c.label);
  const kept = labelled.length - missing.length;
  const block = pageBlock(read.observation);
  const observationTokens = estimateTokens(block);
  const snapshotTokens = estimateTokens(snapshot);
  const htmlTokens = estimateTokens(html);
  return {
    observation: read.observation,
    size: {
      page: name,
      kind,
      observationTokens,
      snapshotTokens,
      htmlTokens,
      observationPieces: countPieces(block),
      snapshotPieces: countPieces(snapshot),
      htmlPieces: countPieces(html),
      ofSnapshot: round(observationTokens / snapshotTokens, 3),
      ofHtml: round(observationTokens / htmlTokens, 3),
      labelled: labelled.length,
      kept,
      missing: missing.slice(0, 10),
      listed: read.observation.controls.length,
      omitted: read.observation.omittedControls,
    },
  };
}

function keptAriaRefs(read: LivePageRead): Set<string> {
  const refs = new Set<string>();
  for (const control of read.observation.controls) {
    const entry = read.entry(control.ref);
    if (entry) refs.add(entry.ariaRef);
  }
  return refs;
}

/** Control-role nodes of the snapshot that carry a name a clerk (or a model) could refer to. */
function labelledControls(tree: Parameters<typeof indexTree>[0]): { ref: string; label: string }[] {
  const out: { ref: string; label: string }[] = [];
  for (const item of indexTree(tree).items) {
    const role = item.node.role;
    if (!CONTROL_ROLES.has(role)) continue;
    const name = collapse(item.node.name ?? '') || (NAME_FROM_CONTENT.has(role) ? nodeText(item.node) : '');
    if (name) out.push({ ref: item.ref, label: `${role} ${JSON.stringify(name)}` });
  }
  return out;
}
