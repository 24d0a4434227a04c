import { ConsoleEventEnvelope, ConsoleResponseEnvelope, type ConsoleEvent } from '../../shared/console-api';
import { apiOver, type ConsoleClient, type ConnectionState } from './console-client';

const REQUEST_TIMEOUT_MS = 60_000;
const MAX_BACKOFF_MS = 5_000;

interface Pending {
  resolve: (result: unknown) => void;
  reject: (err: Error) => void;
  timer: number;
}

/**
 * The browser console's transport: one WebSocket speaking the envelopes of console-api.ts, every
 * incoming message checked with zod, reconnecting with backoff when the service goes away.
 */
export function connectSocket(url: string): ConsoleClient {
  const events = new Set<(event: ConsoleEvent) => void>();
  const states = new Set<(state: ConnectionState) => void>();
  const pending = new Map<number, Pending>();
  const waitingForOpen: (() => void)[] = [];
  let state: ConnectionState = 'connecting';
  let socket: WebSocket | null = null;
  let nextId = 1;
  let backoff = 500;

  const setState = (next: ConnectionState) => {
    if (next === state) return;
    state = next;
    for (const listener of states) listener(next);
  };

  const open = () => {
    setState('connecting');
    const ws = new WebSocket(url);
    socket = ws;
    ws.onopen = () => {
      backoff = 500;
      setState('open');
      for (const go of waitingForOpen.splice(0)) go();
    };
    ws.onmessage = (message) => receive(message.data);
    ws.onclose = () => {
      socket = null;
      for (const [id, p] of pending) {
        pending.delete(id);
        window.clearTimeout(p.timer);
        p.reject(new Error('The connection to the console service was lost; the request may not have been carried out.'));
      }
      setState('closed');
      window.setTimeout(open, backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    };
  };

  const receive = (data: unknown) => {
    if (typeof data !== 'string') return;
    let raw: unknown;
    try {
      raw = JSON.parse(data);
    } catch {
      return;
    }
    if (raw && typeof raw === 'object' && 'event' in raw) {
      const envelope = ConsoleEventEnvelope.safeParse(raw);
      if (envelope.success) for (const listener of events) listener(envelope.data.event);
      return;
    }
    const response = ConsoleResponseEnvelope.safeParse(raw);
    if (!response.success) return;
    const p = pending.get(response.data.id);
    if (!p) return;
    pending.delete(response.data.id);
    window.clearTimeout(p.timer);
    if (response.data.ok) p.resolve(response.data.result);
    else p.reject(new Error(response.data.error));
  };

  const whenOpen = (): Promise<void> =>
    state === 'open' && socket ? Promise.resolve() : new Promise((resolve) => waitingForOpen.push(resolve));

  const call = async (method: string, params: unknown): Promise<unknown> => {
    await whenOpen();
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = window.setTimeout(() => {
        pending.delete(id);
        reject(new Error(`The console service did not answer "${method}" in ${REQUEST_TIMEOUT_MS / 1000} s`));
      }, REQUEST_TIMEOUT_MS);
      pending.set(id, { resolve, reject, timer });
      socket!.send(JSON.stringify({ id, method, params }));
    });
  };

  open();
  return {
    api: apiOver(call),
    kind: 'browser',
    onEvent: (listener) => {
      events.add(listener);
      return () => events.delete(listener);
    },
    onConnection: (listener) => {
      states.add(listener);
      return () => states.delete(listener);
    },
    connection: () => state,
  };
}
