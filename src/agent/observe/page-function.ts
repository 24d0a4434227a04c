/**
 * Turns a self-contained function into an expression to evaluate in a page.
 *
 * tsx (the CLI's loader) compiles with esbuild's keepNames, which wraps named inner functions in
 * a `__name(...)` helper that does not exist in the page. A local no-op stands in for it, so the
 * same source runs under tsx, vitest and a bundled build.
 *
 * With `asJson`, the result comes back as one JSON string: for a large result that is much cheaper
 * than playwright's value-by-value serialisation. The caller parses and checks it.
 */
export function pageExpression<A>(fn: (arg: A) => unknown, arg: A, options: { asJson?: boolean } = {}): string {
  const call = `(${fn.toString()})(${JSON.stringify(arg)})`;
  return `(() => { const __name = (f) => f; return ${options.asJson ? `JSON.stringify(${call})` : call}; })()`;
}

