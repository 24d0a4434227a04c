import type { CDPSession, Page } from 'playwright-core';
import { ControlSubmission } from '../guard/request-values';

/**
 * What a clerk's click or key is about to activate in a portal page, read as the addresses that
 * control would send to: a link's href, a submit button's form action (its `formaction` first),
 * the form a text box submits on Enter. The commit gate counts a commit request as the clerk's own
 * only when it goes to one of these (`ClerkGestures`).
 *
 * The page is untrusted: its scripts can redefine `elementFromPoint`, `activeElement` or
 * `formAction` in its own JavaScript world. So the element is found by the browser's own hit test
 * (`DOM.getNodeForLocation`) and read in an isolated world of ours (`Page.createIsolatedWorld`),
 * whose built-ins the page cannot reach. A control in a frame of another process (a cross-origin
 * frame) is seen as its frame element and names no address: a request from it is asked about.
 */

/** Runs in our isolated world with the target element as `this`; answers the addresses it activates. */
const ADDRESSES_OF = `function () {
  const out = [];
  // A button's formAction is the document's address when it has no formaction of its own.
  const sends = (b) => (b.hasAttribute('formaction') ? b.formAction : b.form.action);
  const activeIn = (el) => {
    for (let n = el; n; n = n.parentElement || (n.getRootNode && n.getRootNode() instanceof ShadowRoot ? n.getRootNode().host : null)) {
      if (n instanceof HTMLAnchorElement || n instanceof HTMLAreaElement) {
        if (n.href) out.push(n.href);
      } else if (n instanceof HTMLButtonElement) {
        if (n.type === 'submit' && n.form) out.push(sends(n));
        return;
      } else if (n instanceof HTMLInputElement) {
        if ((n.type === 'submit' || n.type === 'image') && n.form) out.push(sends(n));
        return;
      }
    }
  };
  activeIn(this);
  return out;
}`;

/** The same, for the element that has the keyboard focus (Enter or Space): Enter in a form's box submits its form. */
const FOCUS_ADDRESSES = `(() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  const out = [];
  if (!el) return out;
  const sends = (b) => (b.hasAttribute('formaction') ? b.formAction : b.form.action);
  if (el instanceof HTMLInputElement && el.form && !['submit', 'image', 'button', 'reset', 'checkbox', 'radio', 'file'].includes(el.type)) out.push(el.form.action);
  if (el instanceof HTMLAnchorElement && el.href) out.push(el.href);
  if ((el instanceof HTMLButtonElement || el instanceof HTMLInputElement) && (el.type === 'submit' || el.type === 'image') && el.form) out.push(sends(el));
  return out;
})()`;

/**
 * Runs in our isolated world with the hit element as `this`: what the control there sends when
 * activated, as it stands now: a link's address, or a submit button's form with its method,
 * encoding, address and entries (`new FormData(form, submitter)`, files by name). Null when the
 * point holds neither.
 */
const SUBMISSION_OF = `function () {
  for (let n = this; n; n = n.parentElement || (n.getRootNode && n.getRootNode() instanceof ShadowRoot ? n.getRootNode().host : null)) {
    if (n instanceof HTMLAnchorElement || n instanceof HTMLAreaElement) return n.href ? { kind: 'link', url: n.href } : null;
    const submits = (n instanceof HTMLButtonElement && n.type === 'submit') || (n instanceof HTMLInputElement && (n.type === 'submit' || n.type === 'image'));
    if (n instanceof HTMLButtonElement || n instanceof HTMLInputElement) {
      if (!submits || !n.form) return null;
      const form = n.form;
      const entries = [];
      for (const [name, value] of new FormData(form, n)) entries.push(typeof value === 'string' ? { name, value } : { name, file: value.name, bytes: value.size });
      return {
        kind: 'form',
        url: n.hasAttribute('formaction') ? n.formAction : form.action,
        method: (n.hasAttribute('formmethod') ? n.formMethod : form.method).toUpperCase(),
        enctype: n.hasAttribute('formenctype') ? n.formEnctype : form.enctype,
        entries,
      };
    }
  }
  return null;
}`;

const WORLD = 'portal-desk-clerk-input';

/** The addresses the control at this point of the viewport (CSS pixels) sends to when activated. */
export async function addressesAt(page: Page, point: { x: number; y: number }): Promise<string[]> {
  return withSession(page, async (cdp) => {
    const hit = await hitTest(cdp, point);
    const frameId = hit.frameId ?? (await mainFrameId(cdp));
    const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId, worldName: WORLD });
    const { object } = await cdp.send('DOM.resolveNode', { backendNodeId: hit.backendNodeId, executionContextId });
    if (!object.objectId) return [];
    const { result } = await cdp.send('Runtime.callFunctionOn', { objectId: object.objectId, functionDeclaration: ADDRESSES_OF, returnByValue: true });
    return strings(result.value);
  });
}

/** What the control at this point sends when activated, read as it stands (`SUBMISSION_OF`); null when nothing there submits or links. */
export async function submissionAt(page: Page, point: { x: number; y: number }): Promise<ControlSubmission | null> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const hit = await hitTest(cdp, point);
    const frameId = hit.frameId ?? (await mainFrameId(cdp));
    const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId, worldName: WORLD });
    const { object } = await cdp.send('DOM.resolveNode', { backendNodeId: hit.backendNodeId, executionContextId });
    if (!object.objectId) return null;
    const { result } = await cdp.send('Runtime.callFunctionOn', { objectId: object.objectId, functionDeclaration: SUBMISSION_OF, returnByValue: true });
    return ControlSubmission.nullable().catch(null).parse(result.value);
  } catch {
    // Nothing readable there (the page navigated, the node went away).
    return null;
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}

/** The addresses the focused control sends to on Enter or Space. */
export async function addressesOfFocus(page: Page): Promise<string[]> {
  return withSession(page, async (cdp) => {
    const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId: await mainFrameId(cdp), worldName: WORLD });
    const { result } = await cdp.send('Runtime.evaluate', { expression: FOCUS_ADDRESSES, contextId: executionContextId, returnByValue: true });
    return strings(result.value);
  });
}

async function withSession(page: Page, read: (cdp: CDPSession) => Promise<string[]>): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    return await read(cdp);
  } catch {
    // Nothing readable there (the page navigated, the node went away): the gesture names no address.
    return [];
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}

/**
 * The node the browser's own hit test finds at a point of the viewport. `DOM.getNodeForLocation`
 * takes the document's coordinates, so the page's scroll (read from the browser's layout, which
 * the page's scripts cannot redefine) is added: without it a scrolled page answered the node
 * under the same point of the document's top, or none.
 */
async function hitTest(cdp: CDPSession, point: { x: number; y: number }): Promise<{ backendNodeId: number; frameId?: string }> {
  const { cssVisualViewport } = await cdp.send('Page.getLayoutMetrics');
  return cdp.send('DOM.getNodeForLocation', {
    x: Math.round(point.x + cssVisualViewport.pageX),
    y: Math.round(point.y + cssVisualViewport.pageY),
    includeUserAgentShadowDOM: false,
    ignorePointerEventsNone: false,
  });
}

async function mainFrameId(cdp: CDPSession): Promise<string> {
  const { frameTree } = await cdp.send('Page.getFrameTree');
  return frameTree.frame.id;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v !== '') : [];
}
