import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './layer-table';

/**
 * The built CLI, as `npm run build:cli` makes it, in a folder of its own: a copy of bin/ beside
 * out/cli, without node_modules at first (so nothing but node builtins can load) and without src
 * (as an installed app has none).
 */
let install: string;

function cli(args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [join(install, 'bin', 'portal-desk.js'), ...args], { env: { ...process.env, PORTAL_DESK_CLI: '', ...env }, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(() => {
  install = mkdtempSync(join(tmpdir(), 'pd-cli-build-'));
  mkdirSync(join(install, 'bin'));
  copyFileSync(join(ROOT, 'bin', 'portal-desk.js'), join(install, 'bin', 'portal-desk.js'));
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-cli.mjs'), '--outdir', join(install, 'out', 'cli')], { stdio: 'pipe' });
});

afterAll(() => rmSync(install, { recursive: true, force: true }));

describe('the built CLI (out/cli)', () => {
  it('prints --help with no node_modules at all: the usage loads no package and no command', () => {
    const run = cli(['--help']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^portal-desk — an AI agent fills portal forms/);
    expect(run.stdout).toMatch(/\n {2}verify {5}check that a recorded run/);
  });

  it('imports only node builtins before a command is chosen', () => {
    const out = join(install, 'out', 'cli');
    const seen = new Set<string>();
    const bare = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const code = readFileSync(join(out, file), 'utf8');
      // Static imports only: `import x from "y"`, `import { … } from "y"`, `import "y"` (not `import("y")`).
      for (const m of code.matchAll(/^import\s*(?:[^'"();]*?\sfrom\s*)?["']([^"']+)["']/gm)) {
        const spec = m[1]!;
        if (spec.startsWith('./')) visit(spec.slice(2));
        else bare.add(spec);
      }
    };
    visit('main.mjs');
    // What loads before a command is chosen is small: the dispatcher, the error classes it maps to exit codes, esbuild's helpers.
    const eager = [...seen].reduce((bytes, file) => bytes + readFileSync(join(out, file)).byteLength, 0);
    expect(eager, [...seen].join(', ')).toBeLessThanOrEqual(16 * 1024);
    for (const spec of bare) expect(builtinModules.includes(spec.replace(/^node:/, '')), spec).toBe(true);
    // The commands are there, loaded on demand.
    expect(readFileSync(join(out, 'main.mjs'), 'utf8')).toMatch(/import\("\.\/verify-[A-Z0-9]+\.mjs"\)/);
  });

  it('carries no lab module in the static import graph of a production command (the demo portals load only on demand)', () => {
    const out = join(install, 'out', 'cli');
    const chunks = JSON.parse(readFileSync(join(out, 'chunks.json'), 'utf8')) as Record<string, string[]>;
    const main = readFileSync(join(out, 'main.mjs'), 'utf8');
    const statics = (file: string): string[] => [...readFileSync(join(out, file), 'utf8').matchAll(/^import\s*(?:[^'"();]*?\sfrom\s*)?["']\.\/([^"']+)["']/gm)].map((m) => m[1]!);
    const carried = (entry: string): Set<string> => {
      const seen = new Set<string>();
      const visit = (file: string) => {
        if (seen.has(file)) return;
        seen.add(file);
        statics(file).forEach(visit);
      };
      visit(entry);
      return new Set([...seen].flatMap((file) => chunks[file] ?? []));
    };
    const chunkOf = (command: string) => main.match(new RegExp(`import\\("\\./(${command}-[A-Z0-9]+\\.mjs)"\\)`))?.[1];
    for (const command of ['run', 'batch', 'resume', 'worker', 'replay', 'verify', 'vault', 'routes', 'purge', 'enqueue', 'waits']) {
      const entry = chunkOf(command);
      expect(entry, command).toBeDefined();
      const sources = carried(entry!);
      expect(sources.has(`src/cli/commands/${command}.ts`), command).toBe(true);
      expect([...sources].filter((source) => source.startsWith('lab/')), command).toEqual([]);
    }
    // The check can fail: the lab's own command carries the lab statically, and a production
    // command reaches it through the dynamic import that DemoLoader makes.
    expect([...carried(chunkOf('lab')!)].some((source) => source.startsWith('lab/'))).toBe(true);
    expect(Object.entries(chunks).some(([file, sources]) => sources.includes('lab/demo/lab-portals.ts') && !carried(chunkOf('run')!).has(file))).toBe(true);
  });

  it("gives each bundled source its own folder as __dirname (resources are found from where the source was)", () => {
    const out = join(install, 'out', 'cli');
    const folders = new Set<string>();
    for (const file of readdirSync(out).filter((f) => f.endsWith('.mjs'))) {
      for (const m of readFileSync(join(out, file), 'utf8').matchAll(/import\.meta\.dirname \+ "([^"]+)"/g)) folders.add(resolve(out + m[1]!));
    }
    expect([...folders].some((f) => f === join(ROOT, 'src', 'agent', 'case'))).toBe(true);
    for (const folder of folders) {
      expect(folder.startsWith(join(ROOT, 'src')) || folder.startsWith(join(ROOT, 'lab')), folder).toBe(true);
      expect(statSync(folder).isDirectory(), folder).toBe(true);
    }
  });

  it('loads a command and its packages on demand once node_modules is there', () => {
    symlinkSync(join(ROOT, 'node_modules'), join(install, 'node_modules'), 'dir');
    const run = cli(['verify', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^portal-desk verify RUN_ID/);
    const unknown = cli(['verifyy']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "verifyy"/);
  });

  it('runs the sources through tsx instead once a source it was built from is newer than the build', () => {
    if (!existsSync(join(install, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules'), join(install, 'node_modules'), 'dir');
    mkdirSync(join(install, 'src', 'cli'), { recursive: true });
    writeFileSync(join(install, 'src', 'cli', 'main.ts'), "export async function main(argv: string[]): Promise<number> {\n  console.log(`from source: ${argv.join(' ')}`);\n  return 0;\n}\n");
    const later = new Date(statSync(join(install, 'out', 'cli', 'main.mjs')).mtimeMs + 60_000);
    utimesSync(join(install, 'src', 'cli', 'main.ts'), later, later);
    expect(cli(['--help']).stdout).toBe('from source: --help\n');
    // PORTAL_DESK_CLI=built runs the build anyway (the bench measures it so).
    expect(cli(['--help'], { PORTAL_DESK_CLI: 'built' }).stdout).toMatch(/^portal-desk — /);
    rmSync(join(install, 'src'), { recursive: true });
  });
});

describe('bin/portal-desk.js in this checkout, from the sources', () => {
  it('serves --help and a lazily loaded command through tsx', () => {
    const env = { ...process.env, PORTAL_DESK_CLI: 'source' };
    const help = spawnSync(process.execPath, [join(ROOT, 'bin', 'portal-desk.js'), '--help'], { env, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^portal-desk — /);
    const verify = spawnSync(process.execPath, [join(ROOT, 'bin', 'portal-desk.js'), 'verify', '--help'], { env, encoding: 'utf8' });
    expect(verify.status).toBe(0);
    expect(verify.stdout).toMatch(/^portal-desk verify RUN_ID/);
  });
});
