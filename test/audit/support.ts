import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';

export function tempDir(prefix = 'pd-audit-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface OpenedReport {
  page: Page;
  /** Every request the page made, other than loading the report file itself. */
  requests: string[];
  /** Requests that reached the router (all are aborted). */
  routed: string[];
  dialogs: string[];
  close(): Promise<void>;
}

/** Opens a report file in a fresh context that refuses (and counts) every request. */
export async function openReport(browser: Browser, file: string): Promise<OpenedReport> {
  const url = pathToFileURL(file).href;
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, javaScriptEnabled: true });
  const page = await context.newPage();
  const requests: string[] = [];
  const routed: string[] = [];
  const dialogs: string[] = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (u === url) return route.continue();
    routed.push(u);
    return route.abort();
  });
  page.on('request', (r) => {
    if (r.url() !== url) requests.push(r.url());
  });
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(url, { waitUntil: 'load' });
  return { page, requests, routed, dialogs, close: () => context.close() };
}

/** A consistent copy of a live SQLite file (WAL included), triggers and all. */
export function copyDatabase(from: string, to: string): void {
  const raw = new Database(from, { readonly: true });
  try {
    raw.prepare('VACUUM INTO ?').run(to);
  } finally {
    raw.close();
  }
}

/** What an attacker with the file does: drop the append-only guards, then write. */
export function tamper(path: string, sql: string, ...params: unknown[]): void {
  const raw = new Database(path);
  try {
    raw.exec('DROP TRIGGER IF EXISTS steps_no_update; DROP TRIGGER IF EXISTS screenshots_fixed_bytes');
    raw.prepare(sql).run(...params);
  } finally {
    raw.close();
  }
}

export function readStepJson(path: string, runId: string, index: number): string {
  const raw = new Database(path, { readonly: true });
  try {
    return raw.prepare('SELECT json FROM steps WHERE run_id = ? AND idx = ?').pluck().get(runId, index) as string;
  } finally {
    raw.close();
  }
}

export function readScreenshot(path: string, sha256: string): Buffer {
  const raw = new Database(path, { readonly: true });
  try {
    return raw.prepare('SELECT png FROM screenshots WHERE sha256 = ?').pluck().get(sha256) as Buffer;
  } finally {
    raw.close();
  }
}

/** The text with the character at `at` swapped for another ASCII letter: one byte changed. */
export function changeOneByte(text: string, at: number): string {
  const c = text[at];
  if (c === undefined || !/[A-Za-z0-9]/.test(c)) throw new Error(`not a plain character at ${at}: ${JSON.stringify(c)}`);
  const swapped = c === 'x' ? 'y' : 'x';
  return text.slice(0, at) + swapped + text.slice(at + 1);
}
