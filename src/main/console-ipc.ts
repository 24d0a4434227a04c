import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import type { ConsoleEvent } from '../shared/console-api';
import { CALL_CHANNEL, EVENT_CHANNEL } from '../preload/channels';
import { isConsoleMethod, senderDecision, type ConsoleOrigin, type IpcAnswer } from './console-policy';
import type { Report } from './session-hardening';
import { errorMessage } from '../base/error-text';

/** What the IPC bridge needs of the console service. */
interface ConsoleHandler {
  handle(method: string, params: unknown): Promise<unknown>;
  subscribe(listener: (event: ConsoleEvent) => void): () => void;
}

interface ConsoleIpcOptions {
  service: ConsoleHandler;
  /** The console window's webContents (undefined once it is closed). */
  consoleContents: () => WebContents | undefined;
  origin: ConsoleOrigin;
  report: Report;
}

/**
 * `ipcMain.handle(CALL_CHANNEL)`: each call is checked in this order, and refused with a
 * one-line reason at the first failure: the sender (the console window's main frame, showing
 * the console), the method (one of the contract's), then the parameters (the console service
 * validates them with the contract's zod schema, and its result too). Events go to the console
 * window only. Returns the function that removes both.
 */
export function wireConsoleIpc(options: ConsoleIpcOptions): () => void {
  const { service, report } = options;
  ipcMain.handle(CALL_CHANNEL, async (event: IpcMainInvokeEvent, method: unknown, params: unknown): Promise<IpcAnswer> => {
    const frame = event.senderFrame;
    const mainFrame = event.sender.mainFrame;
    const verdict = senderDecision(
      {
        webContentsId: event.sender.id,
        frameUrl: frame?.url,
        isMainFrame: !!frame && frame.parent === null && frame.processId === mainFrame.processId && frame.routingId === mainFrame.routingId,
      },
      options.consoleContents()?.id,
      options.origin,
    );
    if (!verdict.allow) {
      report(`Refused a console call: ${verdict.reason}`);
      return { ok: false, error: verdict.reason };
    }
    if (!isConsoleMethod(method)) return { ok: false, error: `Unknown console method "${String(method).slice(0, 60)}"` };
    try {
      const result = await service.handle(method, params);
      return { ok: true, result };
    } catch (err) {
      return { ok: false, error: errorMessage(err) };
    }
  });
  const unsubscribe = service.subscribe((consoleEvent) => {
    const contents = options.consoleContents();
    if (contents && !contents.isDestroyed()) contents.send(EVENT_CHANNEL, consoleEvent);
  });
  return () => {
    ipcMain.removeHandler(CALL_CHANNEL);
    unsubscribe();
  };
}
