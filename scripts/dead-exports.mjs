// `npm run deadcode`: fails on an exported name in src that nothing imports. It reads the whole
// program of tsconfig.json (src, lab, test) with the TypeScript compiler API, follows every import,
// re-export someone uses, dynamic import and `import('…').Name` type to the name it reaches (through
// barrels), and lists each export of a src file that no other file reaches. The few names only the
// outside world calls (bin/portal-desk.js, Electron, the renderer's index.html) are ENTRY_POINTS.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** `file#name` reached from outside the TypeScript program. */
const ENTRY_POINTS = new Set([
  'src/cli/main.ts#main', // bin/portal-desk.js imports it by path
  'src/page/dom-facts.ts#collectDomFacts', // scripts/build-page-code.mjs builds the page code from it
  'src/page/proof-text.ts#firstUnseenText', // built into FIRST_UNSEEN_TEXT_SOURCE (the proof check)
  'src/page/quiet-dom.ts#waitForQuietDom', // built into QUIET_DOM_SOURCE (settling after an action)
  'src/page/picture-sheets.ts#pictureSheets', // built into PICTURE_SHEETS_SOURCE (the pictures' painted-over boxes)
]);

const rel = (file) => path.relative(ROOT, file).split(path.sep).join('/');
const parsed = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
const program = ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noEmit: true } });
const checker = program.getTypeChecker();
const ours = program.getSourceFiles().filter((f) => !f.isDeclarationFile && !rel(f.fileName).startsWith('node_modules/') && !rel(f.fileName).startsWith('..'));

/** Symbols some other file reaches (aliases along the way included). */
const reached = new Set();
function reach(symbol) {
  let s = symbol;
  for (let guard = 0; s && guard < 20; guard++) {
    if (reached.has(s)) return;
    reached.add(s);
    if (!(s.flags & ts.SymbolFlags.Alias)) return;
    s = checker.getImmediateAliasedSymbol(s);
  }
}
const moduleOf = (specifier) => checker.getSymbolAtLocation(specifier);
function reachAll(moduleSymbol) {
  if (moduleSymbol) for (const s of checker.getExportsOfModule(moduleSymbol)) reach(s);
}
function reachName(moduleSymbol, name) {
  if (!moduleSymbol) return;
  const s = checker.getExportsOfModule(moduleSymbol).find((e) => e.escapedName === name);
  if (s) reach(s);
  else reachAll(moduleSymbol);
}

for (const file of ours) {
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && node.importClause) {
      const clause = node.importClause;
      if (clause.name) reach(checker.getSymbolAtLocation(clause.name));
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) reachAll(moduleOf(node.moduleSpecifier));
      if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) reach(checker.getSymbolAtLocation(el.name));
    } else if (ts.isImportDeclaration(node) && !node.importClause) {
      // A side-effect import reaches no name.
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.exportClause) {
      // `export * from`: its names are reached when someone imports them through this module.
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && node.exportClause && ts.isNamespaceExport(node.exportClause)) {
      reachAll(moduleOf(node.moduleSpecifier));
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) {
      const target = moduleOf(node.arguments[0]);
      // `(await import('./x')).name` reaches `name`; anything else reaches every export.
      let up = node.parent;
      if (up && ts.isAwaitExpression(up)) up = up.parent;
      while (up && ts.isParenthesizedExpression(up)) up = up.parent;
      if (up && ts.isPropertyAccessExpression(up)) reachName(target, up.name.text);
      else if (up && ts.isVariableDeclaration(up) && ts.isObjectBindingPattern(up.name)) {
        for (const el of up.name.elements) reachName(target, (el.propertyName ?? el.name).getText());
      } else reachAll(target);
    } else if (ts.isImportTypeNode(node)) {
      const target = ts.isLiteralTypeNode(node.argument) ? moduleOf(node.argument.literal) : undefined;
      if (node.qualifier) reachName(target, ts.isIdentifier(node.qualifier) ? node.qualifier.text : node.qualifier.left.getText());
      else reachAll(target);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}

const dead = [];
/** `--fix`: per file, the text ranges that stop exporting a dead name (an `export` keyword, or a specifier of an export list). */
const fixes = new Map();
const addFix = (file, start, end, text = '') => {
  if (!fixes.has(file)) fixes.set(file, []);
  fixes.get(file).push({ start, end, text });
};
/** Export specifiers dying per export list: the list is rewritten once with what is left. */
const dyingSpecifiers = new Map();
function planFix(file, declaration) {
  if (ts.isExportSpecifier(declaration)) {
    const list = declaration.parent; // NamedExports
    if (!dyingSpecifiers.has(list)) dyingSpecifiers.set(list, { file, dying: new Set() });
    dyingSpecifiers.get(list).dying.add(declaration);
    return true;
  }
  let node = declaration;
  if (ts.isVariableDeclaration(node)) node = node.parent.parent; // VariableStatement
  const modifier = ts.canHaveModifiers(node) ? ts.getModifiers(node)?.find((m) => m.kind === ts.SyntaxKind.ExportKeyword) : undefined;
  if (!modifier) return false;
  if (ts.isVariableStatement(node) && node.declarationList.declarations.length > 1) return false;
  addFix(file, modifier.getStart(), modifier.getEnd() + 1);
  return true;
}
for (const file of ours) {
  const where = rel(file.fileName);
  if (!where.startsWith('src/')) continue;
  const moduleSymbol = checker.getSymbolAtLocation(file);
  if (!moduleSymbol) continue;
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    const declaration = symbol.declarations?.[0];
    if (!declaration || declaration.getSourceFile() !== file) continue; // `export *` names: reported where they are declared
    if (reached.has(symbol) || ENTRY_POINTS.has(`${where}#${symbol.escapedName}`)) continue;
    const { line } = file.getLineAndCharacterOfPosition(declaration.getStart());
    dead.push(`${where}:${line + 1} ${symbol.escapedName}`);
    if (process.argv.includes('--fix') && !planFix(file, declaration)) console.error(`cannot fix ${where}:${line + 1} ${symbol.escapedName}`);
  }
}

if (process.argv.includes('--fix')) {
  const { readFileSync, writeFileSync } = await import('node:fs');
  for (const [list, { file, dying }] of dyingSpecifiers) {
    const kept = list.elements.filter((e) => !dying.has(e));
    if (kept.length === 0) addFix(file, list.parent.getFullStart(), list.parent.getEnd());
    else addFix(file, list.getStart(), list.getEnd(), `{ ${kept.map((e) => e.getText()).join(', ')} }`);
  }
  const only = process.argv.slice(process.argv.indexOf('--fix') + 1).filter((a) => !a.startsWith('--'));
  for (const [file, edits] of fixes) {
    if (only.length && !only.includes(rel(file.fileName))) continue;
    let text = readFileSync(file.fileName, 'utf8');
    for (const e of edits.filter((x) => x.end > x.start).sort((a, b) => b.start - a.start)) text = text.slice(0, e.start) + e.text + text.slice(e.end);
    writeFileSync(file.fileName, text);
  }
}
if (process.argv.includes('--json')) console.log(JSON.stringify(dead));
else if (dead.length) {
  console.error(`${dead.length} exported name(s) in src nothing imports (remove the export, or the code; an entry point goes in ENTRY_POINTS of scripts/dead-exports.mjs):`);
  for (const d of dead) console.error(`  ${d}`);
} else console.log('dead exports: none in src');
process.exitCode = dead.length ? 1 : 0;
