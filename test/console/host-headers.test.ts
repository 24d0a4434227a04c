import { mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleService } from '../../src/console/console-service';
import { startConsoleServer, type ConsoleServer } from '../../src/console/web-server';
import { PortalProfile } from '../../src/shared/portal-profile';
import { openTestService, tempDir } from './support';

/**
 * Issue 29, item 8: allowed hosts are DNS names after the URL parser's normalisation (no IP number
 * in any spelling, ports 1 to 65535), and the console server answers 400 to a request carrying two
 * Host headers (Node keeps the first, so the checks would read one and a proxy the other).
 */
function rawRequest(port: number, lines: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(`${lines.join('\r\n')}\r\n\r\n`));
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (reply += d));
    socket.on('end', () => resolve(reply));
    socket.on('error', reject);
  });
}

describe('allowed hosts are DNS names, ports 1 to 65535', () => {
  const issues = (allowedHosts: string[]): string[] => {
    const parsed = PortalProfile.safeParse({
      id: 'p',
      name: 'P',
      startUrl: 'https://portal.example/',
      allowedHosts: ['portal.example', ...allowedHosts],
      confirmation: { applicationNumberPattern: 'X-\\d+', pageContains: 'x' },
    });
    return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  it('refuses every spelling of an IP number and ports out of range', () => {
    for (const host of ['2130706433', '0x7f000001', '127.1', '0177.0.0.1', '2130706433:8443']) expect(issues([host])[0], host).toMatch(/is an IP number once a browser reads it \(127\.0\.0\.1\)/);
    expect(issues(['portal.example:0'])[0]).toMatch(/has port 0; a port is 1 to 65535/);
    expect(issues(['portal.example:99999'])[0]).toMatch(/has port 99999/);
    expect(issues(['portal.example:8443', 'intranet-7.example'])).toEqual([]);
  });
});

describe('the console server and Host headers', () => {
  let service: ConsoleService;
  let server: ConsoleServer;
  beforeAll(async () => {
    const renderer = tempDir('pd-renderer-');
    mkdirSync(join(renderer, 'assets'));
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>console</title>');
    ({ service } = await openTestService());
    server = await startConsoleServer({ service, rendererDir: renderer });
  });
  afterAll(async () => {
    await server.close();
    await service.close();
  });

  it('answers 400 to two Host headers, and serves one', async () => {
    const host = `127.0.0.1:${server.port}`;
    const two = await rawRequest(server.port, [`GET /?token=${server.token} HTTP/1.1`, `Host: ${host}`, 'Host: evil.example', 'Connection: close']);
    expect(two).toMatch(/^HTTP\/1\.1 400 /);
    const one = await rawRequest(server.port, [`GET /?token=${server.token} HTTP/1.1`, `Host: ${host}`, 'Connection: close']);
    expect(one).not.toMatch(/^HTTP\/1\.1 400 /);
  });
});
