import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './layer-table';

const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const yaml = require('js-yaml') as { load(text: string): unknown };
const config = yaml.load(readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8')) as {
  directories: { buildResources: string };
  linux: { icon: string };
  deb: { depends: string[] };
};

describe('packaging facts (electron-builder.yml, package.json, docs/packaging.md)', () => {
  it('pins the electron-builder that is installed, and its schema accepts electron-builder.yml', async () => {
    const installed = (require('electron-builder/package.json') as { version: string }).version;
    expect(pkg.devDependencies['electron-builder']).toBe(installed);
    expect(installed.split('.')[0]).toBe('26'); // electronFuses arrived in 26.0
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config') as {
      validateConfiguration(config: unknown, log: { isEnabled: boolean; add(): void }): Promise<void>;
    };
    await expect(validateConfiguration(config, { isEnabled: false, add: () => undefined })).resolves.toBeUndefined();
    // And it refuses what it does not know: the check is real.
    await expect(validateConfiguration({ ...config, electronFusez: {} }, { isEnabled: false, add: () => undefined })).rejects.toThrow(/electronFusez/);
  });

  it("keeps every deb dependency electron-builder would add on its own (depends replaces its list)", () => {
    const defaults = ['libgtk-3-0', 'libnotify4', 'libnss3', 'libxss1', 'libxtst6', 'xdg-utils', 'libatspi2.0-0', 'libuuid1', 'libsecret-1-0'];
    const fpm = readFileSync(require.resolve('app-builder-lib/out/targets/FpmTarget.js'), 'utf8');
    expect(fpm).toContain(JSON.stringify(defaults).replaceAll(',', ', '));
    for (const dep of defaults) expect(config.deb.depends).toContain(dep);
  });

  it('has the icon and build resources folder it names', () => {
    expect(existsSync(path.join(ROOT, config.directories.buildResources))).toBe(true);
    const icon = readFileSync(path.join(ROOT, config.linux.icon));
    expect(icon.subarray(1, 4).toString()).toBe('PNG');
    expect(icon.readUInt32BE(16)).toBeGreaterThanOrEqual(256); // width, from the IHDR chunk
  });

  it('ships no development tool as a dependency, and says one Node version in package.json and the README', () => {
    for (const dev of ['tsx', 'esbuild', 'electron', 'electron-builder', 'vitest', 'typescript']) expect(pkg.dependencies[dev]).toBeUndefined();
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(pkg.engines.node).toBe('>=20.19');
    expect(readme).toContain('Node 20.19 or later');
    const packaging = readFileSync(path.join(ROOT, 'docs', 'packaging.md'), 'utf8');
    expect(packaging).not.toMatch(/electron-builder@2[0-5]\b/);
    expect(packaging).toContain(`electron-builder ${pkg.devDependencies['electron-builder']}`);
  });
});
