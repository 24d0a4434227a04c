import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { ConsoleApi, ConsoleBridge, ConsoleEvent, ConsoleMethod } from '../shared/console-api';
import { CALL_CHANNEL, EVENT_CHANNEL } from './channels';

/**
 * The console bridge: `window.portalDesk` is exactly the ConsoleApi (one function per method,
 * each one `ipcRenderer.invoke(CALL_CHANNEL, method, params)`) plus `onEvent`. Nothing of
 * Electron crosses: no ipcRenderer, no event objects, no Node. Runs sandboxed, bundled as
 * CommonJS, so it imports types only from src/shared (no zod at runtime here: main and the
 * console service validate).
 */

/** Every method, once: `satisfies` fails the build when the contract gains or loses one. */
const METHODS = {
  listCases: true,
  startRun: true,
  listRuns: true,
  getRun: true,
  listSteps: true,
  getScreenshot: true,
  decide: true,
  answer: true,
  verifyRun: true,
  exportRun: true,
  listPortals: true,
  listCredentials: true,
  setCredential: true,
  removeCredential: true,
  modelStatus: true,
  takeOver: true,
  handBack: true,
  takeOverInput: true,
  resumeRun: true,
  approvalPicture: true,
  resendCode: true,
  startQueue: true,
  listQueues: true,
  officeStatus: true,
  joinOffice: true,
  answerOfficeWait: true,
} as const satisfies Record<ConsoleMethod, true>;

type IpcAnswer = { ok: true; result: unknown } | { ok: false; error: string };

function call(method: ConsoleMethod) {
  return async (params: unknown): Promise<unknown> => {
    const answer = (await ipcRenderer.invoke(CALL_CHANNEL, method, params ?? {})) as IpcAnswer;
    if (answer && answer.ok === true) return answer.result;
    throw new Error(answer && answer.ok === false ? answer.error : `The console did not answer ${method}`);
  };
}

const api = Object.fromEntries((Object.keys(METHODS) as ConsoleMethod[]).map((method) => [method, call(method)])) as ConsoleApi;

const bridge: ConsoleBridge = {
  ...api,
  onEvent(listener: (event: ConsoleEvent) => void): () => void {
    const handler = (_event: IpcRendererEvent, consoleEvent: ConsoleEvent): void => listener(consoleEvent);
    ipcRenderer.on(EVENT_CHANNEL, handler);
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, handler);
    };
  },
};

contextBridge.exposeInMainWorld('portalDesk', bridge);
