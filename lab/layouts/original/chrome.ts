import { html, trusted } from '../../html';
import { OVERLAY_CSS } from '../../overlays';
import type { PageFrame } from '../view';
import { ORIGINAL_CSS } from './styles';

/** The original page around every screen: department bar, service name, one column. */
export function originalDocument(frame: PageFrame): string {
  const { portal } = frame;
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${frame.title} - ${portal.service}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${trusted(ORIGINAL_CSS + OVERLAY_CSS)}</style></head>
<body class="layout-original">
<header class="header"><span class="dept">${portal.department}</span>${
    frame.signedInAs
      ? html`<form method="post" action="/sign-out"><span>Signed in as ${frame.signedInAs}</span> <button type="submit">Sign out</button></form>`
      : ''
  }</header>
<div class="service"><a href="/">${portal.service}</a></div>
<main id="main">${frame.main}</main>
${frame.overlays}
</body></html>`.value;
}
