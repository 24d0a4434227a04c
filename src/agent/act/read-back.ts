import type { Locator } from 'playwright-core';

/**
 * Reading a control back after acting on it. Every action that puts a value into a control reads
 * the control right after acting (in its driver) and again once the page has settled (in the
 * executor): a widget that cut, changed or silently dropped the value, a drop-down that shows one
 * choice while the select it stands for holds another, a checkbox that flipped back, is reported
 * as a mismatch, so the run does not move on as if the value were there.
 */

/**
 * Reads the control again once the page has settled: a message when it no longer holds what the
 * action put there, null when it does, or when it cannot be read any more (a navigation or a
 * re-render took the element away; the next read of the page shows what is there).
 */
export type ReadBack = (timeout: number) => Promise<string | null>;

/** What a control holds, read in the page. */
interface Held {
  /** An input's or textarea's value, a select's chosen labels, or the element's text. */
  value: string;
  /** A native checkbox's or radio's state, or aria-checked; null for a control without one. */
  checked: boolean | 'mixed' | null;
  /** The label chosen in the native select a select2- or chosen-style box stands for; null without one. */
  native: string | null;
  /** The text of the option aria-activedescendant names; null without one. */
  active: string | null;
  /** aria-selected of the element (an option), or null. */
  selected: string | null;
}

/** What the control holds now, or null when it is gone (or no longer one element). */
export async function heldBy(locator: Locator, timeout: number): Promise<Held | null> {
  if ((await locator.count().catch(() => 0)) !== 1) return null;
  return locator
    .evaluate(
      // No named inner functions here: tsx would wrap them in a helper the page does not have.
      (el) => {
        const aria = el.getAttribute('aria-checked');
        const box = el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio');
        const stands = el.closest('.select2-container, .chosen-container, [data-widget=select]')?.previousElementSibling;
        const activeId = el.getAttribute('aria-activedescendant');
        const root = el.getRootNode() as Document | ShadowRoot;
        return {
          value:
            el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement
              ? el.value
              : el instanceof HTMLSelectElement
                ? Array.from(el.selectedOptions, (o) => o.label || o.text).join(', ')
                : (el.textContent ?? ''),
          checked: box ? (el as HTMLInputElement).checked : aria === 'true' ? true : aria === 'mixed' ? 'mixed' : aria === 'false' ? false : null,
          native: stands instanceof HTMLSelectElement ? (stands.selectedOptions[0]?.text ?? '') : null,
          active: activeId ? (root.getElementById?.(activeId)?.textContent ?? null) : null,
          selected: el.getAttribute('aria-selected'),
        } as const;
      },
      undefined,
      { timeout },
    )
    .catch(() => null);
}

/** Letters and digits only, lower-cased: a box that adds its own spaces or dashes still shows the value. */
export function bare(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Words only, lower-cased and single-spaced, for comparing a choice by whole words ("Ward 1" is not "Ward 12"). */
export function words(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** The box shows that date in some writing: the day and the year, and the month as a number or a name. */
export function showsDate(shown: string, date: { year: number; month: number; day: number }): boolean {
  const numbers = shown.match(/\d+/g)?.map(Number) ?? [];
  const month = MONTHS[date.month - 1]!;
  return numbers.includes(date.day) && numbers.includes(date.year) && (numbers.includes(date.month) || shown.toLowerCase().includes(month.slice(0, 3)));
}

/**
 * A box holds the typed text: the same letters and digits, or all of them with the page's own
 * additions (a mask's prefix, grouping, decimals), or, for a date, the same date in another writing.
 */
export function holdsText(shown: string, typed: string, date?: { year: number; month: number; day: number }): boolean {
  if (shown === typed) return true;
  const want = bare(typed);
  const got = bare(shown);
  if (got === want || (want !== '' && got.includes(want))) return true;
  return !!date && showsDate(shown, date);
}

/** A control shows the choice as whole words (its own text may add a clear button's ×). */
export function showsChoice(shown: string, choice: string): boolean {
  const want = words(choice);
  return want !== '' && ` ${words(shown)} `.includes(` ${want} `);
}

/** Quoted for a message, cut short. */
export function quoted(text: string, max = 80): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(t.length > max ? `${t.slice(0, max - 1)}…` : t);
}
