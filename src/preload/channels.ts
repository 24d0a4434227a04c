/**
 * The two IPC channels of the console bridge. The preload defines the bridge, so the channel
 * names live here; the main process imports them from this file (no Electron in it).
 */

/** renderer → main: `invoke(CALL_CHANNEL, method, params)`, answered with `{ ok, result } | { ok, error }`. */
export const CALL_CHANNEL = 'console:call';

/** main → renderer: `send(EVENT_CHANNEL, consoleEvent)`. */
export const EVENT_CHANNEL = 'console:event';
