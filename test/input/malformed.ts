import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Seeded generators of malformed case files, profiles and arguments: every one is wrong by
 * construction (none can come out valid by chance), and each says which check should refuse it.
 */

export const REPO = join(__dirname, '../..');
export const SAMPLE_CASE = readFileSync(join(REPO, 'resources/cases/shops-renewal-anand-bakery.json'), 'utf8');
export const SAMPLE_PROFILE = readFileSync(join(REPO, 'resources/portals/shops.json'), 'utf8');
/** The longest refusal a person should have to read. */
export const LINE_CAP = 600;
/** Put into generated files; no error message may ever show it. */
export const CANARY = 'CANARY7Q';

/** mulberry32: small, seeded, the same sequence on every machine. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Malformed {
  kind: string;
  /** What the one-line refusal must say. */
  expect: RegExp;
  bytes: Buffer;
}

type Json = Record<string, unknown>;

const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
const int = (rand: () => number, max: number) => Math.floor(rand() * max);

/** A sample as text with one key given twice (in an object that holds it), somewhere random. */
function duplicateKey(text: string, rand: () => number): string {
  const keys = [...text.matchAll(/"([A-Za-z_]+)":/g)];
  const m = pick(rand, keys);
  return `${text.slice(0, m.index)}"${m[1]}": "${CANARY}", ${text.slice(m.index)}`;
}

/** Malformed variants of a valid JSON file (`base`) whose top level is an object. */
export function malformedJson(base: string, rand: () => number, stringFields: readonly string[]): Malformed {
  const data = JSON.parse(base) as Json;
  const kinds: (() => Malformed)[] = [
    () => ({ kind: 'truncated', expect: /not valid JSON/, bytes: Buffer.from(base.slice(0, 1 + int(rand, base.trimEnd().length - 2))) }),
    () => ({ kind: 'syntax: trailing comma', expect: /not valid JSON.*trailing comma/, bytes: Buffer.from(base.replace(/}\s*$/, `, "zz_extra": "${CANARY}",}`)) }),
    () => ({ kind: 'syntax: not json', expect: /not valid JSON: line 1, column 1/, bytes: Buffer.from(`${CANARY}:x:0:0:${pick(rand, ['root', 'daemon', 'bin'])}:/root:/bin/bash\n`) }),
    () => ({ kind: 'syntax: single quotes', expect: /not valid JSON/, bytes: Buffer.from(base.replace(/"/, "'")) }),
    () => ({ kind: 'syntax: raw control character', expect: /not valid JSON.*raw control character/, bytes: Buffer.from(base.replace(/"([^"]{2,})"/, (_, s: string) => `"${s}${String.fromCharCode(1 + int(rand, 31))}${CANARY}"`)) }),
    () => ({ kind: 'syntax: bad escape', expect: /not valid JSON.*escape/, bytes: Buffer.from(base.replace(/"([^"]{2,})"/, `"\\q${CANARY}"`)) }),
    () => ({ kind: 'syntax: second value', expect: /not valid JSON.*more text/, bytes: Buffer.from(`${base}\n{"${CANARY}": 1}`) }),
    () => ({ kind: 'syntax: bom inside', expect: /not valid JSON/, bytes: Buffer.from(base.replace('{', '{\ufeff')) }),
    () => ({ kind: 'empty', expect: /not valid JSON.*ends/, bytes: Buffer.from(pick(rand, ['', ' ', '\n', '\ufeff'])) }),
    () => ({ kind: 'invalid utf-8', expect: /not UTF-8 text/, bytes: invalidUtf8(base, rand) }),
    () => ({ kind: 'duplicate key', expect: /given twice/, bytes: Buffer.from(duplicateKey(base, rand)) }),
    () => ({ kind: '__proto__ key', expect: /__proto__/, bytes: Buffer.from(base.replace(/"(fields|aliases|signIn|confirmation)": ?\{/, (m) => `${m}"__proto__": {"${CANARY}": 1},`)) }),
    () => ({ kind: 'deep nesting', expect: /nested deeper than 32/, bytes: Buffer.from(base.replace(/}\s*$/, `, "zz_extra": ${'['.repeat(40 + int(rand, 5000))}}`)) }),
    () => ({ kind: 'too big', expect: /larger than 1024 KiB/, bytes: Buffer.from(base.replace(/}\s*$/, `, "zz_extra": "${CANARY}${'x'.repeat(1024 * 1024)}"}`)) }),
    () => ({ kind: 'top level not an object', expect: /invalid (case file|portal profile): \(top level\)/, bytes: Buffer.from(pick(rand, ['[]', '"text"', '42', 'null', 'true', `[${base}]`])) }),
    () => ({ kind: 'unknown key', expect: /unknown key "xkkk/, bytes: json({ ...data, [`x${'k'.repeat(50 + int(rand, 5000))}${CANARY}`]: 1 }) }),
    () => ({ kind: 'many unknown keys', expect: /unknown keys .* and \d+ more/, bytes: json({ ...data, ...Object.fromEntries(Array.from({ length: 300 + int(rand, 600) }, (_, i) => [`extra_${i}`, i])) }) }),
    () => ({ kind: 'too many keys in one object', expect: /more than 1000 keys/, bytes: json({ ...data, ...Object.fromEntries(Array.from({ length: 1001 + int(rand, 500) }, (_, i) => [`k${i}`, i])) }) }),
    () => {
      const field = pick(rand, stringFields);
      return { kind: `wrong type: ${field}`, expect: new RegExp(`invalid (case file|portal profile): ${field}: `), bytes: json({ ...data, [field]: pick(rand, [42, true, null, [], {}, [CANARY]]) }) };
    },
    () => {
      const field = pick(rand, stringFields);
      return { kind: `missing: ${field}`, expect: new RegExp(`invalid (case file|portal profile): ${field}: `), bytes: json(Object.fromEntries(Object.entries(data).filter(([k]) => k !== field))) };
    },
  ];
  return pick(rand, kinds)();
}

/** Malformed case files: the JSON-level ones plus what a portal cannot be given. */
export function malformedCase(rand: () => number): Malformed {
  const data = JSON.parse(SAMPLE_CASE) as Json & { fields: Json; aliases: Record<string, string[]> };
  const caseKinds: (() => Malformed)[] = [
    () => ({ kind: 'case: control character in a value', expect: /fields\.business_name: holds a control character \(U\+00[0-9A-F]{2}\)/, bytes: json({ ...data, fields: { ...data.fields, business_name: `Anand${pick(rand, ['\u0000', '\u0007', '\u001b[31m', '\u007f', '\u0085'])}${CANARY}` } }) }),
    () => ({ kind: 'case: lone surrogate', expect: /fields\.business_name: holds half of a surrogate pair/, bytes: Buffer.from(JSON.stringify({ ...data, fields: { ...data.fields, business_name: 'x' } }).replace('"x"', `"\\ud83d${CANARY}"`)) }),
    () => ({ kind: 'case: replacement character', expect: /fields\.business_name: holds a replacement character/, bytes: json({ ...data, fields: { ...data.fields, business_name: `Caf\ufffd ${CANARY}` } }) }),
    () => ({ kind: 'case: bad field name', expect: /fields\..+: invalid key/, bytes: json({ ...data, fields: { ...data.fields, [pick(rand, ['1abc', 'a b', 'a-b', '_x', 'é', 'a'.repeat(81), 'x\u0000y'])]: 'v' } }) }),
    () => ({ kind: 'case: no fields', expect: /fields: at least one field/, bytes: json({ ...data, fields: {} }) }),
    () => ({ kind: 'case: value too long', expect: /fields\.business_name: /, bytes: json({ ...data, fields: { ...data.fields, business_name: `${CANARY}${'y'.repeat(2001 + int(rand, 5000))}` } }) }),
    () => ({ kind: 'case: bad caseId', expect: /caseId: /, bytes: json({ ...data, caseId: pick(rand, ['', 'a b', '../x', `id/${CANARY}`, 'x'.repeat(81)]) }) }),
    () => ({ kind: 'case: alias not a list', expect: /aliases\.business_name: /, bytes: json({ ...data, aliases: { business_name: CANARY } }) }),
    () => ({ kind: 'case: empty declaration', expect: /declarations\.0: /, bytes: json({ ...data, declarations: [''] }) }),
    () => ({ kind: 'case: __proto__ in aliases', expect: /aliases\.__proto__: a key named "__proto__" is refused/, bytes: Buffer.from(SAMPLE_CASE.replace(/"aliases": ?\{/, `"aliases": {"__proto__": ["${CANARY}"], `)) }),
    () => ({ kind: 'case: __proto__ in fields', expect: /fields\.__proto__: a key named "__proto__" is refused/, bytes: Buffer.from(SAMPLE_CASE.replace(/"fields": ?\{/, `"fields": {"__proto__": "${CANARY}", `)) }),
  ];
  if (rand() < 0.4) return pick(rand, caseKinds)();
  return malformedJson(SAMPLE_CASE, rand, ['caseId', 'clientId', 'portal', 'task']);
}

export function malformedProfile(rand: () => number): Malformed {
  return malformedJson(SAMPLE_PROFILE, rand, ['id', 'name', 'startUrl']);
}

/** Bad values for the numeric options and the choices. */
export function badNumber(rand: () => number): string {
  return pick(rand, ['1e2', '0x10', ' 5', '5 ', '+5', '5.0', '-5', '0', '', 'NaN', 'Infinity', '١٢', '5\u0000', `9${'9'.repeat(int(rand, 400))}`, `${CANARY}`, '0b11', '1_000', '٣']);
}

function json(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value, null, 2));
}

function invalidUtf8(base: string, rand: () => number): Buffer {
  const bytes = Buffer.from(base);
  const at = 1 + int(rand, bytes.length - 2);
  const bad = pick(rand, [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80], [0x80], [0xf4, 0x90, 0x80, 0x80]]);
  return Buffer.concat([bytes.subarray(0, at), Buffer.from(bad), bytes.subarray(at)]);
}
