// `npm run build:cli`: bundles the headless CLI (src/cli/main.ts) into out/cli as ES modules, one
// chunk per command, so `portal-desk --help` loads a few kilobytes instead of the whole engine.
// Packages stay external (node_modules at run time); tsx is only for development.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// `--outdir DIR` builds elsewhere (the tests do, so a build never swaps out/cli under a running CLI).
const at = process.argv.indexOf('--outdir');
const OUT = at > 0 ? path.resolve(process.argv[at + 1]) : path.join(ROOT, 'out', 'cli');
// Built beside OUT, then moved into place: a CLI starting meanwhile finds the old build or none.
const NEXT = `${OUT}.next-${process.pid}`;

// Sources (src, and lab for the commands that fill in the demo portals) find files beside them with
// `__dirname` (resources/portals from src/agent/case, say). In the
// bundle each such file gets its own `__dirname`: the folder it came from, reached from out/cli.
const sourceDirname = {
  name: 'source-dirname',
  setup(b) {
    b.onLoad({ filter: /[\\/](src|lab)[\\/].*\.tsx?$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!/\b__dirname\b/.test(text)) return undefined;
      const fromOut = path.relative(OUT, path.dirname(args.path)).split(path.sep).join('/');
      const prelude = `const __dirname = import.meta.dirname + ${JSON.stringify(`/${fromOut}`)};\n`;
      return { contents: prelude + text, loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
};

const result = await build({
  absWorkingDir: ROOT,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: NEXT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  packages: 'external',
  outExtension: { '.js': '.mjs' },
  // Every chunk sits in out/cli itself, so `import.meta.dirname` is out/cli in all of them.
  chunkNames: '[name]-[hash]',
  // A few sources use require.resolve; ES modules have no `require` unless one is made.
  banner: { js: "import { createRequire as __pdCreateRequire } from 'node:module'; const require = __pdCreateRequire(import.meta.url);" },
  sourcemap: 'linked',
  // Error classes take their `name` from the class (PortalDeskError): keep it through renaming.
  keepNames: true,
  metafile: true,
  logLevel: 'warning',
  plugins: [sourceDirname],
});

// The bin runs out/cli only while it is newer than every source it was built from.
const inputs = Object.keys(result.metafile.inputs).filter((p) => p.startsWith('src/') || p.startsWith('lab/'));
await writeFile(path.join(NEXT, 'inputs.json'), `${JSON.stringify(inputs)}\n`);
// Which sources each chunk holds, so a test can walk a command's static imports and name what it carries.
const chunks = Object.fromEntries(
  Object.entries(result.metafile.outputs)
    .filter(([file]) => file.endsWith('.mjs'))
    .map(([file, output]) => [path.basename(file), Object.keys(output.inputs).filter((p) => p.startsWith('src/') || p.startsWith('lab/'))]),
);
await writeFile(path.join(NEXT, 'chunks.json'), `${JSON.stringify(chunks)}\n`);
await rm(OUT, { recursive: true, force: true });
await rename(NEXT, OUT);
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
console.log(`${path.relative(ROOT, OUT) || OUT}: ${Object.keys(result.metafile.outputs).filter((p) => p.endsWith('.mjs')).length} files, ${(bytes / 1024).toFixed(0)} KiB (with maps), from ${inputs.length} sources`);
