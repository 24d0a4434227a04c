/**
 * The page side of a picture (src/agent/observe/page-picture.ts): `paint` adopts the sheet into the
 * document (with the caret rule) and into every open shadow root that holds a box it names;
 * `unpaint` drops every sheet of that mark again. Constructed sheets, not `<style>` elements: a
 * portal's CSP without 'unsafe-inline' would refuse an element (and the boxes would show), and no
 * mutation observer of the page sees them come and go.
 */
export type PictureSheets = { op: 'paint'; mark: string; sheet: string; caret: string; boxes: string } | { op: 'unpaint'; mark: string };

type Marked = CSSStyleSheet & { pdPicture?: string };

export function pictureSheets(arg: PictureSheets): void {
  const roots: (Document | ShadowRoot)[] = [document];
  for (let i = 0; i < roots.length; i++) {
    for (const el of Array.from(roots[i]!.querySelectorAll('*'))) if (el.shadowRoot) roots.push(el.shadowRoot);
  }
  for (const root of roots) {
    if (arg.op === 'unpaint') {
      const kept = root.adoptedStyleSheets.filter((s) => (s as Marked).pdPicture !== arg.mark);
      if (kept.length !== root.adoptedStyleSheets.length) root.adoptedStyleSheets = kept;
      continue;
    }
    const text = root === document ? `${arg.sheet}\n${arg.caret}` : root.querySelector(arg.boxes) ? arg.sheet : '';
    if (!text) continue;
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(text);
    Object.defineProperty(sheet, 'pdPicture', { value: arg.mark });
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  }
}
