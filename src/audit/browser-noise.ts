/**
 * Chromium's own background traffic, hidden from the clerk's and the auditor's view (kept in the
 * raw log): one rule for the report and the console's replay, in src/shared so the renderer can
 * use it. Its host match must end at the browser vendor's domain, so a page's request to a
 * look-alike such as fonts.googleapis.com.evil.example stays in view.
 */
export { visibleEvents } from '../shared/browser-noise';
