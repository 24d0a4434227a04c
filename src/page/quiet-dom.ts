/**
 * The page side of settling after an action (src/agent/act/settle.ts): resolves true once the
 * document has had no mutation for `quietMs`, or false when `capMs` passes first.
 */
export function waitForQuietDom(arg: { quietMs: number; capMs: number }): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const start = performance.now();
    let last = start;
    const observer = new MutationObserver(() => {
      last = performance.now();
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const check = (): void => {
      const now = performance.now();
      if (now - last >= arg.quietMs || now - start >= arg.capMs) {
        observer.disconnect();
        resolve(now - last >= arg.quietMs);
        return;
      }
      setTimeout(check, Math.max(10, Math.min(arg.quietMs - (now - last), arg.capMs - (now - start))));
    };
    setTimeout(check, arg.quietMs);
  });
}
