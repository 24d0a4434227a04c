import { labelOf, sectionKeys, type SectionSpec } from '../forms/spec';
import type { FieldError } from '../forms/validate';
import type { WorkCopy } from '../session';
import { clientOf, type PortalContext } from './context';

/**
 * The `rejectFieldOnce` variant: the portal checks a field against another department's register
 * (PAN, GSTIN, a consumer number) and the first look-up fails, as such look-ups do on real portals.
 * The section comes back with an error on the field and the field emptied (portals clear a value
 * they could not verify); the next post with a value passes. Once per configure and portal.
 * Answers the error to show, or null when the section may go on.
 */
export function failedRegisterCheck(ctx: PortalContext, section: SectionSpec, work: WorkCopy): FieldError | null {
  const key = ctx.variant.rejectFieldOnce;
  if (!key || !sectionKeys(section).includes(key)) return null;
  const client = clientOf(ctx);
  const field = ctx.portal.fields.find((f) => f.key === key);
  if (!field || client.fieldRejected.has(ctx.portal.id) || work.fields[key] === '' || typeof work.fields[key] !== 'string') return null;
  client.fieldRejected.add(ctx.portal.id);
  work.fields[key] = '';
  return { field: key, message: `${labelOf(field, ctx.variant.layout)} could not be verified just now. Enter it again.`, section: section.slug };
}
