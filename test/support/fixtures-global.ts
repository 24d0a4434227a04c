import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * The integration tier's folder of recorded runs for this vitest run (test/support/recorded-run.ts):
 * made empty at the start, provided to every file (`inject('fixturesDir')`), deleted at the end.
 */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'pd-fixtures-'));
  project.provide('fixturesDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
