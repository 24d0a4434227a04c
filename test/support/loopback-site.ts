import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A test's own little site: an HTTP server on a free loopback port (Chromium's resolver rules send its host names there). */
export interface LoopbackSite {
  readonly port: number;
  /** Stops it, dropping any connection still open. */
  close(): Promise<void>;
}

export async function serveOnLoopback(handler: RequestListener): Promise<LoopbackSite> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
