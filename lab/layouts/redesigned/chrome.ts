import { html, trusted } from '../../html';
import { OVERLAY_CSS } from '../../overlays';
import type { PageFrame } from '../view';
import { REDESIGNED_CSS } from './styles';

/** The redesigned page: top bar, left navigation through the sections, content cards. */
export function redesignedDocument(frame: PageFrame): string {
  const { portal, sectionNav } = frame;
  const nav = sectionNav
    ? html`<nav class="side" aria-label="Application sections"><h2>Application</h2><ol>
${sectionNav.sections.map(
  (s, i) =>
    html`<li><a href="/apply/${s.slug}"${s.slug === sectionNav.current ? html` aria-current="step"` : ''}>${i + 1}. ${s.title}</a>${
      sectionNav.done.has(s.slug) ? html`<span class="done" aria-label="completed">✓</span>` : ''
    }</li>`,
)}
<li><a href="/apply/review"${sectionNav.current === 'review' ? html` aria-current="step"` : ''}>${sectionNav.sections.length + 1}. Review</a></li>
</ol></nav>`
    : html`<nav class="side" aria-label="Menu"><ol><li><a href="/">Home</a></li><li><a href="/applications">${portal.wording.redesigned.applicationsLink}</a></li></ol></nav>`;
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${portal.service} | ${frame.title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${trusted(REDESIGNED_CSS + OVERLAY_CSS)}</style>
<script>function labAction(el){var f=el.closest('form');var h=document.createElement('input');h.type='hidden';h.name='_action';h.value=el.getAttribute('data-action');f.appendChild(h);f.submit();}</script>
</head>
<body class="layout-redesigned">
<div class="topbar"><span class="brand">${portal.department} · e-Services</span><span class="grow"></span>${
    frame.signedInAs
      ? html`<span>${frame.signedInAs}</span><form method="post" action="/sign-out"><button type="submit">Log out</button></form>`
      : ''
  }</div>
<div class="shell">${frame.signedInAs ? nav : ''}
<div class="content" role="main">${frame.main}</div></div>
${frame.overlays}
</body></html>`.value;
}
