import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { CHROMIUM_FLAGS, chromiumPath } from '../../../src/agent/browser/chromium';
import type { BrowserVersion, DebuggerLike, HostedPage, PageHost, PageRequest } from '../../../src/agent/browser/cdp-transport';

/**
 * A stand-in for Electron's `webContents.debugger`, backed by a real Chromium.
 *
 * Chromium is started with `--remote-debugging-pipe` (DevTools over file descriptors 3 and 4:
 * no port), and each page the transport asks for is a real page whose flattened DevTools
 * session plays the part of the Electron debugger's own session: commands without a session id
 * go to it, commands with one go to that flattened child session, and events arrive as
 * `('message', event, method, params, sessionId)` with an empty id for the page's own session.
 * That is the shape of `webContents.debugger`, child sessions included (cross-origin frames).
 *
 * Why not `context.newCDPSession(page)` from a playwright-launched browser: playwright's
 * CDPSession has no session-id argument and drops events of child sessions it did not make,
 * so a cross-origin frame's session could not be reached through it.
 */
/**
 * A portal view in Electron is shown and is never throttled (`backgroundThrottling: false`);
 * a headless page created over DevTools counts as hidden, and Chromium then throttles its timers
 * and animation frames (playwright's own launch turns that off with these same switches).
 * Without them, actions that wait for animation frames crawl under load.
 */
const AS_A_SHOWN_VIEW = [
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-renderer-backgrounding',
  '--disable-ipc-flooding-protection',
  '--disable-back-forward-cache',
  '--disable-features=PaintHolding',
];

export class PipeChromium implements PageHost {
  private readonly emitterFor = new Map<string, PipeDebugger>();
  private readonly callbacks = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; method: string }>();
  private readonly contexts = new Map<string, string>();
  private readonly queue: Record<string, unknown>[] = [];
  private draining = false;
  private buffer = '';
  /** Multi-byte characters split across pipe chunks are joined before decoding. */
  private readonly decoder = new StringDecoder('utf8');
  private lastId = 0;
  private exited = false;
  /** Pages opened, in order (tests look at them). */
  readonly opened: { request: PageRequest; targetId: string; closed: boolean; debugger: PipeDebugger }[] = [];

  private constructor(
    private readonly child: ChildProcess,
    private readonly userDataDir: string,
  ) {
    const input = child.stdio[4] as Readable;
    input.on('data', (chunk: Buffer) => this.onData(chunk));
    child.on('exit', () => {
      this.exited = true;
      for (const cb of this.callbacks.values()) cb.reject(new Error(`Chromium exited before answering ${cb.method}`));
      this.callbacks.clear();
    });
  }

  static async launch(options: { hostResolverRules?: string } = {}): Promise<PipeChromium> {
    const userDataDir = mkdtempSync(join(tmpdir(), 'portal-desk-pipe-'));
    const args = [...CHROMIUM_FLAGS, ...AS_A_SHOWN_VIEW, '--headless', `--user-data-dir=${userDataDir}`, '--remote-debugging-pipe'];
    if (options.hostResolverRules) args.push(`--host-resolver-rules=${options.hostResolverRules}`);
    args.push('about:blank');
    const child = spawn(chromiumPath(), args, { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
    const chromium = new PipeChromium(child, userDataDir);
    await chromium.send('Browser.getVersion');
    return chromium;
  }

  async version(): Promise<BrowserVersion> {
    const v = (await this.send('Browser.getVersion')) as BrowserVersion;
    return { product: v.product, userAgent: v.userAgent, revision: v.revision, jsVersion: v.jsVersion };
  }

  /** PageHost: one real browser context per virtual context (as Electron has one session per client). */
  async openPage(request: PageRequest): Promise<HostedPage> {
    let contextId = this.contexts.get(request.browserContextId);
    if (!contextId) {
      contextId = ((await this.send('Target.createBrowserContext', { disposeOnDetach: false })) as { browserContextId: string }).browserContextId;
      this.contexts.set(request.browserContextId, contextId);
    }
    const { targetId } = (await this.send('Target.createTarget', { url: 'about:blank', browserContextId: contextId })) as { targetId: string };
    const { sessionId } = (await this.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
    const dbg = new PipeDebugger(this, sessionId);
    this.emitterFor.set(sessionId, dbg);
    const record = { request, targetId, closed: false, debugger: dbg };
    this.opened.push(record);
    return {
      debugger: dbg,
      close: async () => {
        record.closed = true;
        await this.send('Target.closeTarget', { targetId }).catch(() => undefined);
      },
    };
  }

  lastDebugger(): PipeDebugger | undefined {
    return this.opened.at(-1)?.debugger;
  }

  send(method: string, params: unknown = {}, sessionId?: string): Promise<unknown> {
    if (this.exited) return Promise.reject(new Error(`Chromium has exited; cannot send ${method}`));
    const id = ++this.lastId;
    const message: Record<string, unknown> = { id, method, params };
    if (sessionId) message.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.callbacks.set(id, { resolve, reject, method });
      (this.child.stdio[3] as Writable).write(`${JSON.stringify(message)}\0`);
    });
  }

  /** Registers a session as belonging to a debugger's tree (so its events reach that debugger). */
  adopt(sessionId: string, dbg: PipeDebugger): void {
    this.emitterFor.set(sessionId, dbg);
  }

  async close(): Promise<void> {
    if (!this.exited) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.send('Browser.close').catch(() => undefined);
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.userDataDir, { recursive: true, force: true });
  }

  private onData(chunk: Buffer): void {
    this.buffer += this.decoder.write(chunk);
    let end: number;
    while ((end = this.buffer.indexOf('\0')) >= 0) {
      this.queue.push(JSON.parse(this.buffer.slice(0, end)) as Record<string, unknown>);
      this.buffer = this.buffer.slice(end + 1);
    }
    this.drain();
  }

  /** One message per turn, as Electron delivers them (each with its own microtask checkpoint). */
  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    const next = (): void => {
      const message = this.queue.shift();
      if (!message) {
        this.draining = false;
        return;
      }
      this.deliver(message);
      setImmediate(next);
    };
    setImmediate(next);
  }

  private deliver(message: Record<string, unknown>): void {
    if (typeof message.id === 'number') {
      const cb = this.callbacks.get(message.id);
      if (!cb) return;
      this.callbacks.delete(message.id);
      const error = message.error as { message: string } | undefined;
      if (error) cb.reject(new Error(error.message));
      else cb.resolve(message.result);
      return;
    }
    const sessionId = message.sessionId as string | undefined;
    const method = String(message.method);
    const params = (message.params ?? {}) as Record<string, unknown>;
    if (!sessionId) {
      // Browser-level: a page session ending is that debugger's "detach".
      if (method === 'Target.detachedFromTarget') {
        const dbg = this.emitterFor.get(String(params.sessionId));
        if (dbg && dbg.rootSession === params.sessionId) dbg.detached('target closed');
      }
      return;
    }
    const dbg = this.emitterFor.get(sessionId);
    if (!dbg) return;
    if (method === 'Target.attachedToTarget') this.adopt(String(params.sessionId), dbg);
    dbg.deliver(method, params, sessionId === dbg.rootSession ? '' : sessionId);
  }
}

/** `webContents.debugger`'s shape over one page session of the pipe. */
export class PipeDebugger extends EventEmitter implements DebuggerLike {
  private attached = true;
  /** Every command sent, with the session it went to ('' for the page's own). */
  readonly commands: { method: string; sessionId: string }[] = [];

  constructor(
    private readonly chromium: PipeChromium,
    readonly rootSession: string,
  ) {
    super();
  }

  attach(): void {
    // Attached by PipeChromium.openPage before the page is handed over (attaching over the
    // pipe is asynchronous; Electron's attach() is synchronous).
    this.attached = true;
  }

  isAttached(): boolean {
    return this.attached;
  }

  detach(): void {
    if (!this.attached) return;
    this.attached = false;
    this.chromium.send('Target.detachFromTarget', { sessionId: this.rootSession }).catch(() => undefined);
  }

  async sendCommand(method: string, commandParams: unknown = {}, sessionId?: string): Promise<unknown> {
    if (!this.attached) throw new Error('No target is attached to this debugger');
    this.commands.push({ method, sessionId: sessionId ?? '' });
    return this.chromium.send(method, commandParams, sessionId || this.rootSession);
  }

  deliver(method: string, params: unknown, sessionId: string): void {
    if (this.attached) this.emit('message', {}, method, params, sessionId);
  }

  detached(reason: string): void {
    if (!this.attached) return;
    this.attached = false;
    this.emit('detach', {}, reason);
  }
}
