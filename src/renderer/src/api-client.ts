import { ConsoleEvent, type ConsoleBridge } from '../../shared/console-api';
import { apiOver, type Call, type ConsoleClient } from './console-client';
import { connectSocket } from './socket-client';

/**
 * Picks the transport: the Electron preload's `window.portalDesk` when it is there, otherwise a
 * WebSocket to the browser console that served this page (its token is in the page URL).
 */
export function connectConsole(): ConsoleClient {
  const bridge = (window as { portalDesk?: Partial<ConsoleBridge> }).portalDesk;
  if (bridge && typeof bridge.listRuns === 'function') return electronClient(bridge);
  return connectSocket(socketUrl());
}

function electronClient(bridge: Partial<ConsoleBridge>): ConsoleClient {
  const call: Call = (method, params) => {
    const fn = bridge[method] as ((p: unknown) => Promise<unknown>) | undefined;
    if (typeof fn !== 'function') return Promise.reject(new Error(`The desktop app does not offer "${method}"`));
    return fn(params);
  };
  return {
    api: apiOver(call),
    kind: 'electron',
    onEvent: (listener) => {
      if (typeof bridge.onEvent !== 'function') return () => undefined;
      return bridge.onEvent((event) => {
        const checked = ConsoleEvent.safeParse(event);
        if (checked.success) listener(checked.data);
      });
    },
    onConnection: () => () => undefined,
    connection: () => 'open',
  };
}

function socketUrl(): string {
  const token = new URLSearchParams(window.location.search).get('token') ?? '';
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${window.location.host}/ws?token=${encodeURIComponent(token)}`;
}
