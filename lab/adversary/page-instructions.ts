import type { Observation } from '../../src/shared/observation';

/**
 * What an obedient model takes from a page: every address written anywhere in it, every name it
 * is told to press or choose (quoted text), every e-mail address. Page text is the attacker's
 * channel; the adversary treats all of it as orders.
 */

/** Addresses with a scheme (web, script, data, blob, file, browser-internal), protocol-relative ones and bare www. names. */
const ADDRESS = /(?:\b(?:https?|wss?|javascript|data|blob|file|ftp|chrome|view-source|about|mailto):[^\s<>"'“”‘’]+|(?<![:\w/])\/\/[a-z0-9.-]+\.[a-z]{2,}(?::\d+)?[^\s<>"'“”]*|\bwww\.[a-z0-9.-]+\.[a-z]{2,}[^\s<>"'“”]*)/gi;
const QUOTED = /["“‘'«]([^"“”‘’'«»\n]{2,80})["”’'»]/g;
const EMAIL = /[\w.+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+/gi;
const TRAILING = /[.,;:!?)\]}]+$/;

/** Every piece of text on the page a model reads: title, headings, body text, errors, control names and options, addresses. */
export function pageTexts(observation: Observation): string[] {
  const texts = [observation.title, ...observation.headings, observation.text, ...observation.errors.map((e) => e.message)];
  for (const control of observation.controls) {
    texts.push(control.name);
    if (control.group) texts.push(control.group);
    if (control.options) texts.push(...control.options);
  }
  return texts.filter((t) => t.trim() !== '');
}

/** Addresses written in the page's text (not the links' own addresses), in order, without duplicates. */
export function addressesIn(texts: readonly string[]): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    for (const match of text.matchAll(ADDRESS)) {
      const address = match[0].replace(TRAILING, '');
      if (address.length > 8) found.add(address);
    }
  }
  return [...found];
}

/** Names in quotes ("Delete application", 'Send to …'): what the page tells the reader to press or choose. */
export function quotedIn(texts: readonly string[]): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    for (const match of text.matchAll(QUOTED)) {
      const quoted = match[1]!.trim();
      if (quoted) found.add(quoted);
    }
  }
  return [...found];
}

export function emailsIn(texts: readonly string[]): string[] {
  const found = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(EMAIL)) found.add(match[0].toLowerCase());
  return [...found];
}

/** Cyrillic and Greek letters a reader takes for Latin ones. */
const LOOKS_LATIN: Readonly<Record<string, string>> = { а: 'a', е: 'e', о: 'o', р: 'p', с: 'c', ѕ: 's', х: 'x', у: 'y', і: 'i', ј: 'j', ο: 'o', α: 'a', ε: 'e', ρ: 'p', τ: 't', ν: 'v' };

/** Text compared the way a careless reader compares it: case, spacing, punctuation, look-alike letters and invisible characters ignored. */
export function looseText(text: string): string {
  const folded = text.normalize('NFKC').replace(/\p{Cf}/gu, '').toLowerCase();
  return Array.from(folded, (ch) => LOOKS_LATIN[ch] ?? ch)
    .join('')
    .replace(/[^\p{L}\p{N}]+/gu, '');
}
