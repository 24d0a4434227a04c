import { ConsoleMethods, type ConsoleApi, type ConsoleEvent, type ConsoleMethod } from '../../shared/console-api';

export type ConnectionState = 'connecting' | 'open' | 'closed';

/** The console as the UI sees it: the typed API, the event feed, and whether the service is reachable. */
export interface ConsoleClient {
  readonly api: ConsoleApi;
  /** `electron`: the desktop app's preload bridge; `browser`: the loopback WebSocket. */
  readonly kind: 'electron' | 'browser';
  onEvent(listener: (event: ConsoleEvent) => void): () => void;
  onConnection(listener: (state: ConnectionState) => void): () => void;
  connection(): ConnectionState;
}

/** Raw transport: sends one request, resolves with the unchecked result. */
export type Call = (method: ConsoleMethod, params: unknown) => Promise<unknown>;

/** The API over a transport: params checked before they leave, results checked when they arrive. */
export function apiOver(call: Call): ConsoleApi {
  const api: Record<string, (params: unknown) => Promise<unknown>> = {};
  for (const method of Object.keys(ConsoleMethods) as ConsoleMethod[]) {
    const spec = ConsoleMethods[method];
    api[method] = async (params: unknown) => spec.result.parse(await call(method, spec.params.parse(params ?? {})));
  }
  return api as unknown as ConsoleApi;
}
