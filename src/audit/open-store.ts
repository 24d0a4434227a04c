import { statSync } from 'node:fs';

/**
 * Whether a command's argument names an export file rather than a run id: a file that exists,
 * or anything ending in ".json" (run ids never do).
 */
export function looksLikeExportFile(arg: string): boolean {
  if (/\.json$/i.test(arg)) return true;
  try {
    return statSync(arg).isFile();
  } catch {
    return false;
  }
}
