import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCaseFile } from '../../src/agent/case/case-files';
import { ConfigFileError } from '../../src/agent/case/config-file-error';
import { loadPortalProfile } from '../../src/agent/case/portal-profiles';
import { oneOf, parseCommandArgs, positiveInt } from '../../src/cli/args';
import { UsageError } from '../../src/cli/cli-error';
import { badNumber, CANARY, LINE_CAP, malformedCase, malformedProfile, seeded, type Malformed } from './malformed';

/**
 * Seeded fuzz through the same entry points the CLI uses (loadCaseFile, loadPortalProfile,
 * the argument parsers), in process so that hundreds of inputs stay cheap; test/cli/bad-input.test.ts
 * sends a sample of the same generators through the real CLI for the exit code and the one line.
 */
describe('malformed input, seeded fuzz (in process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pd-fuzz-'));

  const refusal = (load: () => unknown): ConfigFileError => {
    try {
      load();
    } catch (err) {
      if (err instanceof ConfigFileError) return err;
      throw err;
    }
    throw new Error('accepted');
  };

  const checkLine = (message: string, file: string, m: Malformed) => {
    expect(message, m.kind).not.toMatch(/[\r\n]/);
    expect(message.length, `${m.kind}: ${message.slice(0, 200)}`).toBeLessThanOrEqual(LINE_CAP);
    expect(message.startsWith(`${file}: `), m.kind).toBe(true);
    expect(message, m.kind).toMatch(m.expect);
    expect(message, `${m.kind} quotes the file`).not.toContain(CANARY);
  };

  it('refuses 400 malformed case files, each in one bounded line that names the file and the problem and quotes nothing', () => {
    const kinds = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const m = malformedCase(seeded(1000 + i));
      kinds.add(m.kind.replace(/:.*/, ''));
      const file = join(dir, `case-${i}.json`);
      writeFileSync(file, m.bytes);
      checkLine(refusal(() => loadCaseFile(file)).message, file, m);
    }
    // The seeds reach every family of mistake, not one over and over.
    expect(kinds.size).toBeGreaterThanOrEqual(12);
  });

  it('refuses 200 malformed portal profiles the same way, naming the profile file', () => {
    for (let i = 0; i < 200; i++) {
      const m = malformedProfile(seeded(5000 + i));
      const file = join(dir, `profile-${i}.json`);
      writeFileSync(file, m.bytes);
      checkLine(refusal(() => loadPortalProfile(file)).message, file, m);
    }
  });

  it('refuses 200 bad numbers and choices in one short line each', () => {
    for (let i = 0; i < 200; i++) {
      const rand = seeded(9000 + i);
      const value = badNumber(rand);
      const attempts = [
        () => positiveInt('max-steps', value, 40, 100),
        () => parseCommandArgs(['--max-steps', value], { 'max-steps': { type: 'string' } }),
        () => oneOf('model', value, ['rules', 'anthropic'] as const, 'rules'),
      ];
      for (const attempt of attempts.slice(0, value.startsWith('-') ? 2 : 1).concat(attempts[2]!)) {
        let caught: unknown;
        try {
          const parsed = attempt();
          // parseArgs takes any string; the number check behind it must refuse it.
          if (typeof parsed === 'object' && parsed && 'values' in parsed) positiveInt('max-steps', (parsed.values as Record<string, string>)['max-steps'], 40, 100);
        } catch (err) {
          caught = err;
        }
        expect(caught, JSON.stringify(value)).toBeInstanceOf(UsageError);
        const message = (caught as Error).message;
        expect(message).not.toMatch(/[\r\n]/);
        expect(message.length).toBeLessThanOrEqual(200);
      }
    }
  });

  it('refuses unknown and malformed flags in one line, never parseArgs three', () => {
    for (const args of [['--max-steps', '-5'], ['--max-steps'], ['--nope'], [`--${'x'.repeat(5000)}`], ['-z'], ['stray'], ['--max-steps=1', '--max-steps\u0000']]) {
      let caught: unknown;
      try {
        parseCommandArgs(args, { 'max-steps': { type: 'string' } });
      } catch (err) {
        caught = err;
      }
      expect(caught, args.join(' ').slice(0, 40)).toBeInstanceOf(UsageError);
      expect((caught as Error).message).not.toMatch(/[\r\n]/);
      expect((caught as Error).message.length).toBeLessThanOrEqual(240);
    }
  });
});
