import { RE2JS } from 're2js';

/**
 * A regular expression from a profile or case file (the application-number pattern), compiled with
 * RE2's linear-time engine (re2js, pure JS): matching takes time in proportion to the text, whatever
 * the pattern, so no page can be built to hang a run on it. What RE2 cannot express in linear time
 * (backreferences, lookaround) is refused when the file loads, in one line.
 */
export type LinearPattern = RE2JS;

/** The longest pattern a configuration file may hold. */
const MAX_LENGTH = 200;

/** Compiles a pattern, or throws an Error whose message is one line saying what is wrong. */
export function linearPattern(source: string): LinearPattern {
  const problem = patternProblem(source);
  if (problem !== undefined) throw new Error(problem);
  return RE2JS.compile(source);
}

/** `undefined` when the pattern can be used, else one line saying what is wrong. */
export function patternProblem(source: string): string | undefined {
  if (source.length > MAX_LENGTH) return `the pattern is ${source.length} characters long (at most ${MAX_LENGTH})`;
  try {
    // Compiling (never running) a JavaScript regex only tells a typo from a construct RE2 lacks.
    new RegExp(source);
  } catch (err) {
    return `the pattern does not compile (${err instanceof Error ? err.message : String(err)})`;
  }
  try {
    RE2JS.compile(source);
    return undefined;
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').slice(0, 160);
    return `the pattern cannot run in linear time (RE2 syntax: no backreferences such as \\1, no lookahead or lookbehind): ${message}`;
  }
}

/**
 * A pattern the product builds itself from text it keeps (a learned route's page text with its
 * value marks), compiled for RE2's linear-time engine; no length limit, since it is made, not
 * written by a person in a configuration file.
 */
export function builtLinearPattern(source: string): LinearPattern {
  return RE2JS.compile(source);
}

/** Whether the whole text matches the pattern. */
export function matchesWhole(pattern: LinearPattern, text: string): boolean {
  return pattern.matches(text);
}

/** The first match in the text: its first group where the pattern has one that took part, else the whole match. */
export function firstMatch(pattern: LinearPattern, text: string): string | undefined {
  const m = pattern.matcher(text);
  if (!m.find()) return undefined;
  return (m.groupCount() >= 1 ? m.group(1) : null) ?? m.group(0) ?? undefined;
}

/** Every match in the text (first group, else the whole match), at most `limit`. */
export function allMatches(pattern: LinearPattern, text: string, limit: number): string[] {
  const found: string[] = [];
  const m = pattern.matcher(text);
  while (found.length < limit && m.find()) {
    const value = (m.groupCount() >= 1 ? m.group(1) : null) ?? m.group(0);
    if (value !== null) found.push(value);
  }
  return found;
}
