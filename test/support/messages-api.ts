import { afterEach } from 'vitest';
import { startMessagesApi, type MessagesApi } from '../../lab/messages-api';

/**
 * A loopback Messages API per test, registered on the calling file: `serve(...)` starts one (the
 * arguments of `startMessagesApi`), and it is closed after the test whether it passed or not.
 */
export function useMessagesApi(): (...args: Parameters<typeof startMessagesApi>) => Promise<MessagesApi> {
  let api: MessagesApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });
  return async (...args) => (api = await startMessagesApi(...args));
}
