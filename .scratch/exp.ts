import { createServer } from 'node:https';
import { chromium } from 'playwright-core';
import { EgressCa } from '/work/wt/gate-tls/src/agent/guard/egress-ca';
(async () => {
  const ca = await EgressCa.make();
  const ctx = await ca.contextFor('shops.portal.example');
  const server = createServer({ SNICallback: (_n, cb) => cb(null, ctx) }, (req, res) => res.end('hello ' + req.url));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as any).port;
  for (const flag of [ca.spkiFlag, '--ignore-certificate-errors-spki-list=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=']) {
    const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', flag, '--host-resolver-rules=MAP * 127.0.0.1'] });
    const p = await b.newPage();
    try { await p.goto(`https://shops.portal.example:${port}/x`); console.log(flag.slice(-10), await p.textContent('body')); } catch (e) { console.log(flag.slice(-10), String(e).slice(0, 120)); }
    await b.close();
  }
  server.close();
})();
