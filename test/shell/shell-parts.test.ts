import { describe, expect, it } from 'vitest';
import { labResolverRules } from '../../lab/demo/lab-portals';
import { MIN_CONSOLE_WIDTH, portalViewBounds, TOP_BAR } from '../../src/main/portal-layout';
import { chromeUserAgent } from '../../src/main/user-agent';
import { CAPTCHA_HOST, CONTROL_HOST, PHONE_HOST, PORTAL_HOSTS } from '../../lab/hosts';

describe('labResolverRules', () => {
  it('maps only the lab’s names to the loopback lab, never every name', () => {
    const rules = labResolverRules();
    for (const host of [...Object.values(PORTAL_HOSTS), PHONE_HOST, CONTROL_HOST, CAPTCHA_HOST]) expect(rules).toContain(`MAP ${host} 127.0.0.1`);
    expect(rules).not.toMatch(/MAP \*/);
    expect(rules.split(', ').every((rule) => /^MAP [a-z0-9.-]+\.example 127\.0\.0\.1$/.test(rule))).toBe(true);
  });
});

describe('portalViewBounds', () => {
  it('puts the portal on the right below the top bar, leaving the console its column', () => {
    expect(portalViewBounds({ width: 1440, height: 900 })).toEqual({ x: 1440 - 864, y: TOP_BAR, width: 864, height: 900 - TOP_BAR });
    const narrow = portalViewBounds({ width: 1000, height: 640 });
    expect(narrow.x).toBe(MIN_CONSOLE_WIDTH);
    expect(narrow.width).toBe(1000 - MIN_CONSOLE_WIDTH);
    expect(portalViewBounds({ width: 100, height: 10 })).toEqual({ x: 100, y: TOP_BAR, width: 0, height: 0 });
  });
});

describe('chromeUserAgent', () => {
  it('drops the Electron and app tokens', () => {
    const electron = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) portal-desk/0.1.0 Chrome/146.0.7680.31 Electron/41.10.0 Safari/537.36';
    expect(chromeUserAgent(electron)).toBe('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/146.0.7680.31 Safari/537.36');
  });
});
