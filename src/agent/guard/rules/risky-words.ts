/**
 * Finding the profile's risky words ("submit", "pay", "cancel application") in a control's name,
 * on word boundaries and ignoring case: "Submit application" and "Re-submit" contain "submit",
 * "Submitted applications" does not; "Pay now" contains "pay", "Payee name" does not.
 *
 * A boundary is anything that is not a letter or a digit in any script, so an underscore or an
 * accented letter counts the way a reader sees it (`\b` in a JavaScript regex only knows ASCII).
 * Before matching, the name is folded the way it looks on screen: compatibility forms (full-width
 * letters) become plain letters, invisible format characters (zero-width spaces, soft hyphens)
 * are dropped, and Cyrillic and Greek letters that look like Latin ones are read as Latin, so
 * "Sub\u200Bmit" and "Ѕubmit" (Cyrillic Ѕ) still read "submit".
 */

/** Cyrillic and Greek letters drawn like Latin ones (lower case, after case folding). */
const LOOKALIKES: Readonly<Record<string, string>> = {
  а: 'a', в: 'b', е: 'e', ё: 'e', һ: 'h', і: 'i', ї: 'i', ј: 'j', к: 'k', м: 'm', н: 'h', о: 'o', п: 'n', р: 'p',
  с: 'c', ѕ: 's', т: 't', у: 'y', х: 'x', ү: 'y', ԁ: 'd', ԛ: 'q', ԝ: 'w', ɡ: 'g',
  α: 'a', β: 'b', ε: 'e', η: 'n', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', ω: 'w',
};

/** The text as a reader sees it, for matching only. */
export function foldForMatching(text: string): string {
  return Array.from(text.normalize('NFKC').replace(/\p{Cf}/gu, '').toLowerCase(), (ch) => LOOKALIKES[ch] ?? ch).join('');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function wordPattern(word: string): RegExp | undefined {
  const parts = foldForMatching(word).split(/[^\p{L}\p{N}]+/u).filter(Boolean).map(escapeRegExp);
  if (parts.length === 0) return undefined;
  return new RegExp(`(?<![\\p{L}\\p{N}])${parts.join('[^\\p{L}\\p{N}]+')}(?![\\p{L}\\p{N}])`, 'u');
}

/** Every risky word (as the profile spells it) that `text` contains on word boundaries, in list order. */
export function riskyWordsIn(text: string, words: readonly string[]): string[] {
  const folded = foldForMatching(text);
  return words.filter((word) => wordPattern(word)?.test(folded) ?? false);
}

/** The first risky word `text` contains, or undefined. */
export function riskyWordIn(text: string, words: readonly string[]): string | undefined {
  return riskyWordsIn(text, words)[0];
}
