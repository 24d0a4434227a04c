import type { Locator, Page } from 'playwright-core';
import type { Control, Observation } from '../../shared/observation';

/**
 * One read of the live page: the observation the model sees, and the private
 * table that turns this read's opaque refs back into elements.
 */
export interface PageRead {
  readonly observation: Observation;
  /** The control a ref of this read names; undefined for refs of any other read. */
  control(ref: string): Control | undefined;
  /**
   * The element behind a ref of this read, or null when the ref is not from this read
   * or its element is gone (re-rendered, removed). Answers in milliseconds, never waits.
   */
  resolve(ref: string): Promise<Locator | null>;
}

export interface ObserveOptions {
  /** Character budget for the page text (default DEFAULT_TEXT_BUDGET). */
  textBudget?: number;
  /** At most this many controls (default MAX_CONTROLS). */
  maxControls?: number;
}

export interface Observer {
  read(page: Page, options?: ObserveOptions): Promise<PageRead>;
}
