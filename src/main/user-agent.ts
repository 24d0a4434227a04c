/**
 * The user agent a portal sees: Chromium's own, without the tokens Electron adds (`Electron/x`,
 * the app's name and version). Portals built for browsers sometimes refuse an unknown agent.
 */
export function chromeUserAgent(electronUserAgent: string): string {
  return electronUserAgent
    .replace(/\s+Electron\/\S+/g, '')
    .replace(/\s+portal-desk\/\S+/gi, '')
    .replace(/\s+Portal ?Desk\/\S+/gi, '')
    .replace(/\s{2,}/g, ' ')
    .trim();
}
