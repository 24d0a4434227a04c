import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConsoleService } from '../../console/console-service';
import { startConsoleServer } from '../../console/web-server';
import { findOnPath } from '../../vault';
import { defaultDbPath, StoreOpenError } from '../../store';
import type { DemoPortals } from '../../service/demo-portals';
import { parseCommandArgs, positiveInt } from '../args';
import { DemoLoader } from '../demo-portals';
import { EXIT, UsageError } from '../cli-error';

const REPO = resolve(__dirname, '../../..');
const RENDERER_DIR = join(REPO, 'out/renderer');

const HELP = `portal-desk console [options]

Opens the operator console. Where the Electron desktop app cannot start, the console is served
to your browser on 127.0.0.1 behind a one-time token: open the printed URL.

  --port N        port of the browser console (default: a free one)
  --db PATH       the run store (default: ${defaultDbPath()})
  --cases DIR     the folder of case files (default: resources/cases)
  --lab-url URL   lab portals only: use the lab already running there ("portal-desk lab" prints it),
                  so one-time codes, CAPTCHAs and layouts can be set on it for the clerk to try
                  (its owner sets them; without this option the console starts its own lab and
                  prints where its demo phone and control API are when the first lab run starts;
                  with a lab URL the console is served to your browser)
  --no-open       print the URL only; do not open a browser
  --browser       serve the browser console even where Electron could start`;

export async function consoleCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, {
    port: { type: 'string' },
    db: { type: 'string' },
    cases: { type: 'string' },
    'lab-url': { type: 'string' },
    'no-open': { type: 'boolean' },
    browser: { type: 'boolean' },
  });
  if (values.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  const port = values.port === undefined ? 0 : positiveInt('port', values.port, 0, 65535);
  const casesDir = resolve(values.cases ?? join(REPO, 'resources/cases'));
  if (!existsSync(casesDir)) throw new UsageError(`--cases: no folder ${casesDir}`);
  if (!statSync(casesDir).isDirectory()) throw new UsageError(`--cases: ${casesDir} is not a folder; the cases folder is a folder of case files`);
  const dbPath = values.db ?? defaultDbPath();
  // A bad lab address is a usage error before anything starts. The desktop app takes no lab: with one, the console is served to the browser.
  const labUrl = values['lab-url'];
  const external = labUrl === undefined ? undefined : await new DemoLoader().runningPortals(labUrl);

  const electron = electronProblem();
  if (!electron.problem && !values.browser && !external) return runElectron(electron.binary, args);
  if (!values.browser && !external) console.error(`Electron cannot start here (${electron.problem}); serving the console to your browser instead.`);

  ensureRendererBuilt();
  // The browser console is the CLI's demo root: it fills in the demo-portal port with the portal lab (its own, or the one at --lab-url).
  const demo = external ?? (await ownLab());
  let service: ConsoleService;
  try {
    service = await ConsoleService.open({ dbPath, casesDir, demo });
  } catch (err) {
    if (err instanceof StoreOpenError) throw new UsageError(`${err.message}. Nothing was changed.`);
    throw err;
  }
  const server = await startConsoleServer({ service, port });
  console.log(`Portal Desk console: ${server.url}`);
  console.error(`Store ${dbPath}, cases ${casesDir}. Keep the URL private: it carries the console's token. Ctrl+C stops the console.`);
  if (!values['no-open']) await openInBrowser(server.url);

  await new Promise<void>((resolveStop) => {
    const stop = () => resolveStop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  console.error('Stopping the console: runs still going or waiting for you are left interrupted (nothing is decided for you); resume them from the next console or with "portal-desk resume RUN_ID".');
  await server.close();
  await service.close();
  await demo.stop();
  return EXIT.ok;
}

/** The console's own portal lab, started on the first lab run, which then prints where its demo phone and control API are. */
async function ownLab(): Promise<DemoPortals> {
  const [{ LabHandle }, { describeLab }] = await Promise.all([import('../../../lab/demo/lab-portals'), import('../../../lab/describe')]);
  return new LabHandle((lab) => console.error(`The console's demo portals:\n${describeLab(lab)}`));
}

/** Why the Electron app cannot start here, or where its binary is. */
function electronProblem(): { problem?: string; binary: string } {
  let dir: string;
  try {
    dir = dirname(require.resolve('electron/package.json', { paths: [REPO] }));
  } catch {
    return { problem: 'the electron package is not installed', binary: '' };
  }
  // Read path.txt ourselves: requiring "electron" without its binary tries to download it.
  const pathFile = join(dir, 'path.txt');
  if (!existsSync(pathFile)) return { problem: 'the Electron binary is not installed', binary: '' };
  const binary = join(dir, 'dist', readFileSync(pathFile, 'utf8').trim());
  if (!existsSync(binary)) return { problem: `no Electron binary at ${binary}`, binary };
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return { problem: 'no display (DISPLAY is not set)', binary };
  if (!existsSync(join(REPO, 'out/main/index.js'))) return { problem: 'the app is not built (run "npm run build")', binary };
  return { binary };
}

async function runElectron(binary: string, args: string[]): Promise<number> {
  const child = spawn(binary, [REPO, ...args], { stdio: 'inherit' });
  return new Promise((resolveExit) => child.on('exit', (code) => resolveExit(code ?? EXIT.notDone)));
}

/** The browser console serves out/renderer; build it once when it is missing. */
function ensureRendererBuilt(): void {
  if (existsSync(join(RENDERER_DIR, 'index.html'))) return;
  console.error('The console UI is not built yet; building it now (npm run build)…');
  const built = spawnSync(process.execPath, [join(REPO, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0 || !existsSync(join(RENDERER_DIR, 'index.html'))) {
    throw new UsageError(`the console UI could not be built; run "npm run build" in ${REPO} and try again`);
  }
}

async function openInBrowser(url: string): Promise<void> {
  const opener = process.platform === 'darwin' ? 'open' : (await findOnPath('xdg-open', process.env)) ? 'xdg-open' : null;
  if (!opener) {
    console.error('No browser opener found (xdg-open); open the URL above yourself.');
    return;
  }
  const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => console.error('Could not open a browser; open the URL above yourself.'));
  child.unref();
}
