import { readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');

export interface Layer {
  folder: string;
  holds: string;
  layers: string[];
  node: boolean;
  packages: string[];
}

/** docs/layers.json: the layer table the lint is generated from. */
export function readLayers(): Layer[] {
  return (JSON.parse(readFileSync(path.join(ROOT, 'docs', 'layers.json'), 'utf8')) as { layers: Layer[] }).layers;
}

/** One row of the architecture page's table, as the page must write it. */
export function tableRow(layer: Layer): string {
  const mayImport = [
    layer.layers.length ? layer.layers.join(', ') : 'no other layer',
    ...(layer.node ? ['node builtins'] : []),
    ...(layer.packages.length ? [layer.packages.map((p) => `\`${p}\``).join(', ')] : []),
  ].join('; ');
  return `| \`${layer.folder}\` | ${layer.holds} | ${mayImport} |`;
}

export function layerTable(layers: Layer[]): string[] {
  return ['| folder | holds | may import |', '|---|---|---|', ...layers.map(tableRow)];
}

/** The table under "## Layers" in docs/architecture.md, line by line. */
export function pageTable(markdown: string): string[] {
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Layers\n'));
  if (!section) return [];
  return section.split('\n').filter((line) => line.startsWith('|'));
}
