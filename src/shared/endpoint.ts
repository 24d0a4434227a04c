/**
 * Two addresses name the same endpoint: origin and path (a GET form adds its query; a fragment
 * is not sent). The commit gate ties an approval, or a clerk's own click, to the one request
 * that goes to the endpoint the control names, and to no other.
 */
export function sameEndpoint(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    return x.origin === y.origin && x.pathname === y.pathname;
  } catch {
    return false;
  }
}
