// Lint keeps the layers honest (the VS Code `code-layering` habit): where a file sits decides what it
// may import. docs/layers.json is the architecture page's layer table as data; each layer names the
// layers and npm packages it may import, and everything else fails.
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const ROOT = path.dirname(fileURLToPath(import.meta.url));
const LAYERS = JSON.parse(readFileSync(path.join(ROOT, 'docs', 'layers.json'), 'utf8')).layers;
const BUILTINS = new Set(builtinModules);

/** `src/agent/act/x.ts` → the layer entry whose folder holds it (the longest folder that does: `lab/eval/x.ts` is lab/eval's, not lab's). */
function layerOf(relative) {
  let found;
  for (const layer of LAYERS) {
    if (relative === layer.folder || relative.startsWith(`${layer.folder}/`)) {
      if (!found || layer.folder.length > found.folder.length) found = layer;
    }
  }
  return found;
}

const layerName = (folder) => folder.replace(/^src\//, '');
const packageName = (specifier) => {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
};
const allowed = (layer) =>
  [
    layer.layers.length ? layer.layers.join(', ') : 'no other layer',
    layer.node ? 'node builtins' : 'no node builtins',
    layer.packages.length ? layer.packages.join(', ') : 'no packages',
  ].join('; ');

const layerImports = {
  meta: {
    type: 'problem',
    docs: { description: 'A layer (src or lab) imports only what docs/layers.json allows it.' },
    schema: [],
    messages: {
      noEntry: '{{folder}} has no entry in docs/layers.json: add its row (and the architecture page\'s) before adding code there.',
      layer: '{{from}} may not import {{to}} (docs/layers.json: {{from}} may import {{allowed}}).',
      outside: '{{from}} may not import "{{specifier}}": it resolves outside every layer ({{target}}).',
      node: '{{from}} may not import the node builtin "{{specifier}}" (docs/layers.json: {{from}} may import {{allowed}}).',
      package: '{{from}} may not import the package "{{name}}" (docs/layers.json: {{from}} may import {{allowed}}).',
    },
  },
  create(context) {
    const file = path.relative(ROOT, context.filename).split(path.sep).join('/');
    const layer = layerOf(file);
    if (!layer) {
      return {
        Program(node) {
          context.report({ node, messageId: 'noEntry', data: { folder: file.split('/').slice(0, 2).join('/') } });
        },
      };
    }
    const from = layer.folder;
    const check = (node, specifier) => {
      if (typeof specifier !== 'string') return;
      const data = { from, allowed: allowed(layer), specifier };
      if (specifier.startsWith('.') || specifier.startsWith('/')) {
        const target = path.relative(ROOT, path.resolve(path.dirname(context.filename), specifier)).split(path.sep).join('/');
        const to = layerOf(target);
        if (!to) return context.report({ node, messageId: 'outside', data: { ...data, target } });
        if (to === layer || layer.layers.includes(layerName(to.folder))) return;
        return context.report({ node, messageId: 'layer', data: { ...data, to: to.folder } });
      }
      if (specifier.startsWith('node:') || BUILTINS.has(specifier)) {
        if (!layer.node) context.report({ node, messageId: 'node', data });
        return;
      }
      const name = packageName(specifier);
      if (!layer.packages.includes(name)) context.report({ node, messageId: 'package', data: { ...data, name } });
    };
    const literal = (node) => (node && node.type === 'Literal' ? node.value : undefined);
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => check(node.source, literal(node.source)),
      TSImportType: (node) => check(node, literal(node.source) ?? literal(node.argument?.literal)),
      TSExternalModuleReference: (node) => check(node.expression, literal(node.expression)),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node, literal(node.arguments[0]));
      },
    };
  },
};

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-artifacts/**', 'resources/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'off',
    },
  },
  {
    // The product (src) and what stays outside it (lab: the portal lab, eval, bench, adversary, demo).
    files: ['src/**', 'lab/**'],
    plugins: { layers: { rules: { imports: layerImports } } },
    rules: { 'layers/imports': 'error' },
  },
  {
    // Page code runs inside portal pages (src/page, built to a string by scripts/build-page-code.mjs):
    // the layer row lets it import only its own files; here, no Node global either.
    files: ['src/page/**'],
    rules: {
      'no-restricted-globals': ['error', ...['process', 'require', 'module', 'Buffer', 'global', '__dirname', '__filename', 'setImmediate'].map((name) => ({ name, message: 'Page code runs in the page: no Node globals.' }))],
    },
  },
  { files: ['scripts/**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
  { files: ['bin/**/*.js'], languageOptions: { globals: { require: 'readonly', process: 'readonly', __dirname: 'readonly', console: 'readonly' } }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
