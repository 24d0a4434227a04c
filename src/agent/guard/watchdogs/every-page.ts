import type { BrowserContext, Page } from 'playwright-core';

/** Runs `install` on every page of the context, those open now and those that open later. */
export function onEveryPage(context: BrowserContext, install: (page: Page) => void): () => void {
  for (const page of context.pages()) install(page);
  context.on('page', install);
  return () => {
    context.off('page', install);
  };
}
