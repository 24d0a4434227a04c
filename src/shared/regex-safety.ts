/**
 * Whether a regular expression from a configuration file is safe to run on page text: it
 * compiles, and it has no quantified group that itself holds an unbounded quantifier
 * (`(a+)+`, `(\d*)*`, `(x+y?)+`), the shape behind catastrophic backtracking, which would hang a
 * run on a page built to trigger it. Pure: used when a portal profile is loaded.
 *
 * Answers `undefined` when the pattern is safe, else one line saying what is wrong.
 */
export function regexProblem(source: string, maxLength = 200): string | undefined {
  if (source.length > maxLength) return `the pattern is ${source.length} characters long (at most ${maxLength})`;
  try {
    new RegExp(source);
  } catch (err) {
    return `the pattern does not compile (${err instanceof Error ? err.message : String(err)})`;
  }
  /** For each open group: whether something inside it repeats without bound. */
  const groups: boolean[] = [];
  /** The group that just closed held an unbounded repeat (null: the last atom was not a group). */
  let closed: boolean | null = null;
  const markRepeat = (): void => {
    if (groups.length > 0) groups[groups.length - 1] = true;
  };
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    const quantifier = unboundedQuantifierAt(source, i);
    if (quantifier !== null) {
      if (quantifier.repeats && closed === true) {
        return 'the pattern repeats a group that itself repeats (like (a+)+), which can take minutes on a crafted page; write it without the nested repetition';
      }
      if (quantifier.repeats) markRepeat();
      i += quantifier.length - 1;
      closed = null;
      continue;
    }
    closed = null;
    if (ch === '\\') {
      i++;
    } else if (ch === '[') {
      // A character class: skip to its closing bracket (escapes inside honoured).
      for (i++; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i++;
    } else if (ch === '(') {
      groups.push(false);
    } else if (ch === ')') {
      const inner = groups.pop() ?? false;
      if (inner) markRepeat();
      closed = inner;
    }
  }
  return undefined;
}

/** A quantifier starting at `i`: its length, and whether it repeats more than a few times. */
function unboundedQuantifierAt(source: string, i: number): { length: number; repeats: boolean } | null {
  const ch = source[i];
  const lazy = (n: number) => (source[i + n] === '?' ? n + 1 : n);
  if (ch === '*' || ch === '+') return { length: lazy(1), repeats: true };
  if (ch === '?') return { length: lazy(1), repeats: false };
  if (ch !== '{') return null;
  const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
  if (!match) return null;
  const upper = match[2] === undefined ? Number(match[1]) : match[3] === '' ? Infinity : Number(match[3]);
  return { length: lazy(match[0].length), repeats: upper > 16 };
}
