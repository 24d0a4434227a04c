import { createServer } from 'node:https';
import { launchChromium } from '../src/agent/browser/chromium';
import { openGuardedContext, egressLockOf } from '../src/agent/guard/browser';
import { MemoryCa } from '../src/agent/guard/memory-ca';
import { PortalProfile } from '../src/shared/portal-profile';
(async () => {
  const ca = await MemoryCa.make();
  const server = createServer({ SNICallback: (n, cb) => void ca.contextFor(n).then((c) => cb(null, c)) }, (req, res) => res.end('<h1>hello ' + req.url + '</h1>'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as any).port;
  const b = await launchChromium({ hostResolverRules: 'MAP * 127.0.0.1', portalCa: ca.certPem });
  const profile = PortalProfile.parse({ id: 'shops', name: 'S', startUrl: `https://shops.portal.example:${port}/`, allowedHosts: [`shops.portal.example:${port}`], confirmation: { applicationNumberPattern: 'X', pageContains: 'Y' } });
  const ctx = await openGuardedContext(b, profile);
  const p = await ctx.newPage();
  try { await p.goto(`https://shops.portal.example:${port}/x`); console.log(await p.textContent('body')); } catch (e) { console.log(String(e).slice(0, 200)); }
  console.log(JSON.stringify(egressLockOf(ctx)!.takeRequests()));
  await b.close(); server.close();
})();
