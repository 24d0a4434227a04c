import type { CDPSession, Page } from 'playwright-core';

interface ScreencastOptions {
  /** Least time between two frames: Chromium sends the next frame only after the ack, which waits this long. */
  frameIntervalMs?: number;
  quality?: number;
  maxWidth?: number;
  maxHeight?: number;
}

export interface Screencast {
  stop(): Promise<void>;
}

interface ScreencastFrame {
  data: string;
  sessionId: number;
}

/**
 * The live view of a run's portal page: Chromium's own screencast over a CDP session, JPEG,
 * paced to about two frames a second by delaying each ack. Frames come only when the page
 * repaints, so a page at rest costs nothing.
 */
export async function startScreencast(page: Page, onFrame: (jpegBase64: string) => void, options: ScreencastOptions = {}): Promise<Screencast> {
  const interval = options.frameIntervalMs ?? 500;
  const session: CDPSession = await page.context().newCDPSession(page);
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();

  session.on('Page.screencastFrame', (frame: ScreencastFrame) => {
    if (stopped) return;
    onFrame(frame.data);
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) session.send('Page.screencastFrameAck', { sessionId: frame.sessionId }).catch(() => undefined);
    }, interval);
    timers.add(timer);
  });
  await session.send('Page.startScreencast', {
    format: 'jpeg',
    quality: options.quality ?? 60,
    maxWidth: options.maxWidth ?? 1280,
    maxHeight: options.maxHeight ?? 900,
  });

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    await session.send('Page.stopScreencast').catch(() => undefined);
    await session.detach().catch(() => undefined);
  };
  page.once('close', () => void stop());
  return { stop };
}
