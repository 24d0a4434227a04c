import type { z } from 'zod';
import { shownKey } from './strict-json';

/** At most this many problems are spelled out; the rest are counted. */
const SHOWN_ISSUES = 3;
const MAX_MESSAGE = 160;

/**
 * `fields.business_name: expected string, received number`, for at most three problems (the rest
 * counted), each cut to a bounded length, keys escaped: a file with 200,000 bad keys or a
 * 10-million-character name still gets one short line.
 */
export function describeZodError(error: z.ZodError): string {
  // Issues with the same message are told once, with the places they occur.
  const byMessage = new Map<string, string[]>();
  for (const issue of error.issues) {
    const message = cut(issueMessage(issue));
    const places = byMessage.get(message) ?? [];
    if (places.length === 0 && byMessage.size >= SHOWN_ISSUES) continue;
    places.push(issue.path.length > 0 ? issue.path.slice(0, 5).map((k) => shownKey(String(k))).join('.') : '(top level)');
    byMessage.set(message, places);
  }
  const shown = [...byMessage].map(([message, places]) => {
    const more = places.length - SHOWN_ISSUES;
    return `${places.slice(0, SHOWN_ISSUES).join(', ')}${more > 0 ? ` and ${more} more` : ''}: ${message}`;
  });
  const told = [...byMessage.values()].reduce((n, places) => n + places.length, 0);
  const more = error.issues.length - told;
  return `${shown.join('; ')}${more > 0 ? `; and ${more} more problem${more === 1 ? '' : 's'}` : ''}`;
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.slice(0, SHOWN_ISSUES).map((k) => `"${shownKey(k)}"`);
    const more = issue.keys.length - keys.length;
    return `unknown key${issue.keys.length === 1 ? '' : 's'} ${keys.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  }
  // A record key that fails its own check: say which check, not just "Invalid key in record".
  if (issue.code === 'invalid_key' && issue.issues[0]) return `invalid key: ${issue.issues[0].message}`;
  return issue.message.replace(/[\p{Cc}\p{Cf}]/gu, ' ');
}

function cut(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}
