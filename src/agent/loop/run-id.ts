import { randomBytes } from 'node:crypto';

/** `run-20261202-171502-3fa9c1`: sortable by start time, unique without coordination. */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `run-${stamp}-${randomBytes(3).toString('hex')}`;
}
