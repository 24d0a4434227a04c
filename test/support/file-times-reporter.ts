import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** One test file's time as scripts/test-times.mjs reads it. */
export interface FileTime {
  file: string;
  /** Import, set-up and every hook and test of the file, in milliseconds. */
  ms: number;
  tests: number;
  state: string;
}

/** What the reporter writes at the end of a vitest run. */
export interface FileTimes {
  startedAt: number;
  endedAt: number;
  files: FileTime[];
}

/**
 * Each test file's whole time: importing it, its set-up, and its hooks and tests. vitest's JSON
 * report times a file from its first test to its last, so a file that does its work in
 * `beforeAll` (the attack suite runs its whole sample there) looked instant in it. Written to
 * `outputFile` at the end of the run; scripts/test-times.mjs prints the slowest.
 */
export default class FileTimesReporter implements Reporter {
  private readonly started = new Map<string, number>();
  private readonly files: FileTime[] = [];
  private readonly startedAt = Date.now();

  constructor(private readonly outputFile: string) {}

  onTestModuleStart(module: TestModule): void {
    // The first start counts: where files share a worker (isolate: false) the event came again mid-file, and a
    // file was timed from its last test (route-roots printed as 25.7 s where vitest timed it at 62 s).
    if (!this.started.has(module.moduleId)) this.started.set(module.moduleId, performance.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const started = this.started.get(module.moduleId);
    const { duration, environmentSetupDuration, prepareDuration, collectDuration, setupDuration } = module.diagnostic();
    // Never less than vitest's own duration of its tests (a file was printed as 0 s once).
    const running = Math.max(duration, started === undefined ? 0 : performance.now() - started);
    this.files.push({
      file: module.relativeModuleId,
      ms: Math.round(running + environmentSetupDuration + prepareDuration + collectDuration + setupDuration),
      tests: [...module.children.allTests()].length,
      state: module.state(),
    });
  }

  onTestRunEnd(): void {
    const times: FileTimes = { startedAt: this.startedAt, endedAt: Date.now(), files: this.files };
    mkdirSync(dirname(this.outputFile), { recursive: true });
    writeFileSync(this.outputFile, `${JSON.stringify(times, null, 1)}\n`);
  }
}
