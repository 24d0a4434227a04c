import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';

/** What the numbers were measured on: they mean little without it. */
export interface Machine {
  /** CPUs this process may use (what `nproc` prints). */
  nproc: number;
  cpuModel: string;
  node: string;
  chromium: string;
  playwrightCore: string;
  /** 1, 5 and 15-minute load averages when the bench started and when it ended. */
  loadAtStart: number[];
  loadAtEnd: number[];
}

export function describeMachine(browser: Browser, loadAtStart: number[]): Machine {
  return {
    nproc: availableParallelism(),
    cpuModel: cpuModel(),
    node: process.version,
    chromium: browser.version(),
    playwrightCore: packageVersion('playwright-core'),
    loadAtStart,
    loadAtEnd: load(),
  };
}

export function load(): number[] {
  return loadavg().map((l) => Math.round(l * 100) / 100);
}

function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line) return line.slice(line.indexOf(':') + 1).trim();
  } catch {
    // not Linux
  }
  return cpus()[0]?.model ?? 'unknown';
}

function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(resolve(__dirname, '../../node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
