import { hasRef } from '../../../shared/action';
import { shorten } from '../../../shared/allowed-hosts';
import { block, type GuardRule } from './rule';

/**
 * A ref that is not in the current read (from an older read, or made up) is refused here, before
 * any other rule: the other rules judge a control by what the read saw of it, and a control nobody
 * saw cannot be judged. Nothing on the page is touched; the reason goes back to the model, which
 * reads the page again. (The executor answers `unknown_ref` on its own as well, for a ref whose
 * element vanished between the read and the action.)
 */
export const unknownRefRule: GuardRule = {
  id: 'unknown-ref',
  check(action, ctx) {
    if (!hasRef(action) || ctx.control(action.ref)) return undefined;
    return block(
      'unknown-ref',
      `There is no control "${shorten(action.ref, 32)}" on the page as last read (the ref is from an older read, or made up). Nothing was done; use a ref from the latest read.`,
    );
  },
};
