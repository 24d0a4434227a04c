/**
 * A call of built page code (src/page, see scripts/build-page-code.mjs) as an expression to
 * evaluate in a page: `source` is one of the generated `*_SOURCE` constants, `arg` its one
 * argument, passed as JSON. No function of this process is ever serialised into a page.
 */
export function pageCall(source: string, arg: unknown): string {
  return `(${source})(${JSON.stringify(arg)})`;
}
