import type { CDPSession, Page } from 'playwright-core';
import { ControlSubmission } from '../../shared/control-submission';

/**
 * What a control in a portal page sends when activated, read as it stands before the click or key
 * is played: a link's address, a submit button's form (its `formaction` first) with its method
 * and values, the form a text box submits on Enter. The commit gate counts a commit request as
 * the clerk's own in a take-over only when it goes there carrying exactly that (`ClerkGestures`),
 * and lets an approved click's request go unasked only likewise (the approval stage reads it when
 * the clerk is asked).
 *
 * The page is untrusted: its scripts can redefine `elementFromPoint`, `activeElement` or
 * `formAction` in its own JavaScript world. So the element is found by the browser's own hit test
 * (`DOM.getNodeForLocation`) and read in an isolated world of ours (`Page.createIsolatedWorld`),
 * whose built-ins the page cannot reach. A control in a frame of another process (a cross-origin
 * frame) is seen as its frame element and names no address: a request from it is asked about.
 */

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

/**
 * The same for the element that has the keyboard focus (Enter or Space), as an expression: a
 * focused link or submit button sends what it sends; Enter in a form's box submits its form with
 * its default button (the first submit button) as the submitter.
 */
const FOCUS_SUBMISSION = `(() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  if (!el) return null;
  const submitsForm = el instanceof HTMLInputElement && el.form && !['submit', 'image', 'button', 'reset', 'checkbox', 'radio', 'file'].includes(el.type);
  if (!submitsForm) return (${SUBMISSION_OF}).call(el);
  const form = el.form;
  const button = [...form.elements].find((b) => (b instanceof HTMLButtonElement && b.type === 'submit') || (b instanceof HTMLInputElement && (b.type === 'submit' || b.type === 'image')));
  if (button) return (${SUBMISSION_OF}).call(button);
  const entries = [];
  for (const [name, value] of new FormData(form)) entries.push(typeof value === 'string' ? { name, value } : { name, file: value.name, bytes: value.size });
  return { kind: 'form', url: form.action, method: form.method.toUpperCase(), enctype: form.enctype, entries };
})()`;

const WORLD = 'portal-desk-clerk-input';

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

/** What the focused control sends on Enter or Space (`FOCUS_SUBMISSION`); null when nothing. */
export async function submissionOfFocus(page: Page): Promise<ControlSubmission | null> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId: await mainFrameId(cdp), worldName: WORLD });
    const { result } = await cdp.send('Runtime.evaluate', { expression: FOCUS_SUBMISSION, contextId: executionContextId, returnByValue: true });
    return ControlSubmission.nullable().catch(null).parse(result.value);
  } catch {
    return null;
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
