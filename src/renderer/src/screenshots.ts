import { useEffect, useState } from 'react';
import type { ConsoleApi } from '../../shared/console-api';

const cache = new Map<string, Promise<string | null>>();

/** A step screenshot as a data: URL, fetched once per hash; null while loading or when purged. */
export function useScreenshot(api: ConsoleApi, hash: string | null | undefined): { url: string | null; missing: boolean } {
  const [state, setState] = useState<{ hash: string | null; url: string | null; missing: boolean }>({ hash: null, url: null, missing: false });
  useEffect(() => {
    if (!hash) return;
    let current = true;
    let load = cache.get(hash);
    if (!load) {
      load = api
        .getScreenshot({ hash })
        .then((r) => (r.pngBase64 ? `data:image/png;base64,${r.pngBase64}` : null))
        .catch(() => {
          cache.delete(hash);
          return null;
        });
      cache.set(hash, load);
    }
    void load.then((url) => {
      if (current) setState({ hash, url, missing: url === null });
    });
    return () => {
      current = false;
    };
  }, [api, hash]);
  if (!hash) return { url: null, missing: true };
  return state.hash === hash ? { url: state.url, missing: state.missing } : { url: null, missing: false };
}
