/**
 * Text a portal page wrote, made safe to show a clerk who decides on it: every character a reader
 * cannot see (zero-width spaces and joiners, soft hyphens, word joiners, variation selectors, tag
 * characters, control characters) and every character that changes the direction of the text
 * around it (bidirectional embeddings, overrides and isolates, right-to-left and left-to-right
 * marks) is replaced by a visible mark naming it: `⟦U+202E right-to-left override⟧`. So a value
 * cannot hide a part of itself, reorder what follows it, or pull the address or another value off
 * its place on the card. Pure; the console's card and the terminal prompt both show values
 * through it.
 */

const NAMES: Readonly<Record<number, string>> = {
  0x00ad: 'soft hyphen',
  0x034f: 'combining grapheme joiner',
  0x061c: 'arabic letter mark',
  0x115f: 'hangul choseong filler',
  0x1160: 'hangul jungseong filler',
  0x17b4: 'khmer vowel inherent aq',
  0x17b5: 'khmer vowel inherent aa',
  0x180e: 'mongolian vowel separator',
  0x200b: 'zero width space',
  0x200c: 'zero width non-joiner',
  0x200d: 'zero width joiner',
  0x200e: 'left-to-right mark',
  0x200f: 'right-to-left mark',
  0x2028: 'line separator',
  0x2029: 'paragraph separator',
  0x202a: 'left-to-right embedding',
  0x202b: 'right-to-left embedding',
  0x202c: 'pop directional formatting',
  0x202d: 'left-to-right override',
  0x202e: 'right-to-left override',
  0x2060: 'word joiner',
  0x2061: 'function application',
  0x2062: 'invisible times',
  0x2063: 'invisible separator',
  0x2064: 'invisible plus',
  0x2066: 'left-to-right isolate',
  0x2067: 'right-to-left isolate',
  0x2068: 'first strong isolate',
  0x2069: 'pop directional isolate',
  0x3164: 'hangul filler',
  0xfeff: 'zero width no-break space',
  0xffa0: 'halfwidth hangul filler',
};

/** One character that is not seen, or turns text around: control characters (tab and line breaks aside), the named ones, variation selectors, tag characters. */
function hidden(code: number): boolean {
  if (code === 0x09 || code === 0x0a || code === 0x0d) return false;
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  if (NAMES[code] !== undefined) return true;
  if (code >= 0x180b && code <= 0x180f) return true;
  if (code >= 0x206a && code <= 0x206f) return true;
  if (code >= 0xfe00 && code <= 0xfe0f) return true;
  if (code >= 0xfff0 && code <= 0xfffb) return true;
  if (code >= 0xe0000 && code <= 0xe0fff) return true;
  return false;
}

function mark(code: number): string {
  const hex = code.toString(16).toUpperCase().padStart(4, '0');
  const name = NAMES[code] ?? (code >= 0xe0000 ? 'tag or variation selector' : code >= 0xfe00 && code <= 0xfe0f ? 'variation selector' : code < 0x20 || code <= 0x9f ? 'control character' : 'invisible character');
  return `⟦U+${hex} ${name}⟧`;
}

/** `text` with each character a reader cannot see, or that changes the text's direction, shown as a mark naming it. */
export function showInvisible(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    out += hidden(code) ? mark(code) : ch;
  }
  return out;
}

/** How many such characters `text` holds (the card says a value carries them). */
export function invisibleCount(text: string): number {
  let n = 0;
  for (const ch of text) if (hidden(ch.codePointAt(0)!)) n += 1;
  return n;
}
