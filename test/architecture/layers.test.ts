import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { layerTable, pageTable, readLayers, ROOT } from './layer-table';

const layers = readLayers();
const names = new Set(layers.map((l) => l.folder.replace(/^src\//, '')));

describe('the layer table (docs/layers.json)', () => {
  const subfolders = (at: string): string[] =>
    readdirSync(path.join(ROOT, at), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `${at}/${e.name}`);

  it('has one entry for every src folder, and none for a folder that is gone', () => {
    expect(layers.map((l) => l.folder).filter((f) => f.startsWith('src/')).sort()).toEqual(subfolders('src').sort());
    for (const layer of layers) expect(existsSync(path.join(ROOT, layer.folder)), layer.folder).toBe(true);
  });

  it('keeps the lab, eval, bench and adversary outside the product: no src layer but the CLI may import a lab layer', () => {
    expect(layers.filter((l) => l.folder === 'lab' || l.folder.startsWith('lab/')).map((l) => l.folder).sort()).toEqual(['lab', 'lab/adversary', 'lab/bench', 'lab/demo', 'lab/eval']);
    for (const gone of ['src/lab', 'src/eval', 'src/bench', 'src/agent/decide/adversary']) expect(existsSync(path.join(ROOT, gone)), gone).toBe(false);
    const reaching = layers.filter((l) => l.folder.startsWith('src/') && l.layers.some((to) => to === 'lab' || to.startsWith('lab/')));
    expect(reaching.map((l) => l.folder)).toEqual(['src/cli']);
  });

  it('names only layers that exist, and no cycle among them', () => {
    for (const layer of layers) for (const to of layer.layers) expect(names, `${layer.folder} names ${to}`).toContain(to);
    const byName = new Map(layers.map((l) => [l.folder.replace(/^src\//, ''), l.layers]));
    const visiting = new Set<string>();
    const done = new Set<string>();
    const visit = (name: string, trail: string[]): void => {
      if (done.has(name)) return;
      if (visiting.has(name)) throw new Error(`layer cycle: ${[...trail, name].join(' → ')}`);
      visiting.add(name);
      for (const to of byName.get(name) ?? []) visit(to, [...trail, name]);
      visiting.delete(name);
      done.add(name);
    };
    for (const name of byName.keys()) visit(name, []);
  });

  it('is the table docs/architecture.md shows', () => {
    const page = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
    expect(pageTable(page)).toEqual(layerTable(layers));
  });
});

describe('the layer lint (eslint.config.mjs)', () => {
  const eslint = new ESLint({ cwd: ROOT });

  /** Lints one import written in a file at `file` and returns the layer rule's messages. */
  async function layerErrors(file: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(`${code}\nexport {};\n`, { filePath: path.join(ROOT, file) });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'layers/imports').map((m) => m.message);
  }

  // The imports the issue found passing the old deny-list, and packages each layer must not reach.
  const refused: [file: string, code: string, says: string][] = [
    ['src/agent/loop/probe.ts', "import { Vault } from '../../vault/vault'; void Vault;", 'src/agent may not import src/vault'],
    ['src/agent/act/probe.ts', "export * from '../../audit/index';", 'src/agent may not import src/audit'],
    ['src/agent/probe.ts', "void import('../../lab/eval/suite');", 'src/agent may not import lab/eval'],
    ['src/main/probe.ts', "import { LabHandle } from '../../lab/demo/lab-portals'; void LabHandle;", 'src/main may not import lab/demo'],
    ['src/service/probe.ts', "import { startLab } from '../../lab'; void startLab;", 'src/service may not import lab'],
    ['src/console/probe.ts', "import { AdversaryPlanner } from '../../lab/adversary'; void AdversaryPlanner;", 'src/console may not import lab/adversary'],
    ['lab/adversary/probe.ts', "import { Store } from '../../src/store'; void Store;", 'lab/adversary may not import src/store'],
    ['src/agent/observe/probe.ts', "import type { ClerkDesk } from '../../console/clerk-desk'; export type D = ClerkDesk;", 'src/agent may not import src/console'],
    ['src/agent/probe.ts', "import { app } from 'electron'; void app;", 'src/agent may not import the package "electron"'],
    ['src/agent/probe.ts', "import Database from 'better-sqlite3'; void Database;", 'src/agent may not import the package "better-sqlite3"'],
    ['src/agent/probe.ts', "import { WebSocket } from 'ws'; void WebSocket;", 'src/agent may not import the package "ws"'],
    ['src/shared/probe.ts', "import { Vault } from '../vault/vault'; void Vault;", 'src/shared may not import src/vault'],
    ['src/shared/probe.ts', "import { readFileSync } from 'node:fs'; void readFileSync;", 'src/shared may not import the node builtin "node:fs"'],
    ['src/shared/probe.ts', "import { errorText } from '../base/error-text'; void errorText;", 'src/shared may not import src/base'],
    ['src/renderer/src/probe.ts', "import { RunService } from '../../service/run-service'; void RunService;", 'src/renderer may not import src/service'],
    ['src/renderer/src/parts/probe.tsx', "import { Vault } from '../../../vault/vault'; void Vault;", 'src/renderer may not import src/vault'],
    ['src/renderer/src/probe.ts', "import * as audit from '../../audit/index'; void audit;", 'src/renderer may not import src/audit'],
    ['src/renderer/src/probe.ts', "import { chromium } from 'playwright-core'; void chromium;", 'src/renderer may not import the package "playwright-core"'],
    ['src/vault/probe.ts', "import * as audit from '../audit/index'; void audit;", 'src/vault may not import src/audit'],
    ['src/vault/probe.ts', "import * as c from '../console/clerk-desk'; void c;", 'src/vault may not import src/console'],
    ['lab/forms/probe.ts', "import * as audit from '../../src/audit/index'; void audit;", 'lab may not import src/audit'],
    ['src/store/probe.ts', "import { chromium } from 'playwright-core/lib/x'; void chromium;", 'src/store may not import the package "playwright-core"'],
    ['src/audit/probe.ts', "import Anthropic from '@anthropic-ai/sdk/client'; void Anthropic;", 'src/audit may not import the package "@anthropic-ai/sdk"'],
    ['src/service/probe.ts', "import * as c from '../console/clerk-desk'; void c;", 'src/service may not import src/console'],
    ['lab/probe.ts', "import * as t from '../test/support/cli'; void t;", 'resolves outside every layer'],
    ['src/cli/probe.ts', "import * as m from '../main/index'; void m;", 'src/cli may not import src/main'],
  ];

  it.each(refused)('refuses %s: %s', async (file, code, says) => {
    const errors = await layerErrors(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(says);
  });

  it('refuses every file of a src folder with no entry', async () => {
    const errors = await layerErrors('src/newlayer/probe.ts', "import { z } from 'zod'; void z;");
    expect(errors).toEqual([expect.stringContaining('src/newlayer has no entry in docs/layers.json')]);
  });

  const allowed: [file: string, code: string][] = [
    ['src/agent/act/probe.ts', "import type { Action } from '../../shared/action'; import { chromium } from 'playwright-core'; import { readFileSync } from 'node:fs'; export type A = Action; void chromium; void readFileSync;"],
    ['src/agent/act/probe.ts', "import { settle } from '../loop/run-loop'; import Anthropic from '@anthropic-ai/sdk'; void settle; void Anthropic;"],
    ['src/shared/probe.ts', "import { z } from 'zod'; import { x } from './action'; void z; void x;"],
    ['src/renderer/src/parts/probe.tsx', "import { useState } from 'react'; import { createRoot } from 'react-dom/client'; import type { Action } from '../../../shared/action'; export type A = Action; void useState; void createRoot;"],
    ['src/main/probe.ts', "import { app } from 'electron'; import { CALL_CHANNEL } from '../preload/channels'; void app; void CALL_CHANNEL;"],
    ['src/store/probe.ts', "import Database from 'better-sqlite3'; import { canonicalJson } from '../base/canonical-json'; void Database; void canonicalJson;"],
  ];

  it.each(allowed)('allows %s: %s', async (file, code) => {
    expect(await layerErrors(file, code)).toEqual([]);
  });
});
