import type { LabLayout } from '../variants';
import { applySameAs, sameAsControlling } from './same-as';
import { labelOf, sectionKeys, type FieldSpec, type FieldValues, type PortalSpec, type SectionSpec } from './spec';

/** Server-side validation, as a real portal does it: required fields, formats, lengths, options. */

export interface FieldError {
  field: string;
  message: string;
  /** The section the field is on (set when validating a whole application). */
  section?: string;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** "Owner PAN" → "owner PAN"; "Business name" → "business name". */
function inSentence(label: string): string {
  return /^[A-Z][a-z]/.test(label) ? label[0]!.toLowerCase() + label.slice(1) : label;
}

export function isRealDate(value: string): boolean {
  const m = ISO_DATE.exec(value);
  if (!m) return false;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.toISOString().slice(0, 10) === value && Number(m[1]) >= 1900;
}

function validateField(field: FieldSpec, fields: FieldValues, layout: LabLayout, copied: boolean): string | null {
  const label = labelOf(field, layout);
  const value = fields[field.key];
  if (field.kind === 'declaration') return value === true ? null : 'Tick the declaration to confirm it';
  if (field.kind === 'checkbox') return null;
  const text = typeof value === 'string' ? value : '';
  if (text === '') {
    if (!field.required || copied) return null;
    return field.kind === 'radio' || field.kind === 'select' ? `Select ${inSentence(label)}` : `Enter ${inSentence(label)}`;
  }
  if (field.maxLength !== undefined && text.length > field.maxLength) return `${label} must be ${field.maxLength} characters or fewer`;
  if (field.options && !field.options.includes(text)) return `Select ${inSentence(label)}`;
  if (field.kind === 'date' && !isRealDate(text)) return `${label} must be a real date`;
  if (field.kind === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) return `Enter an email address in the correct format, like name@example.com`;
  if (field.kind === 'tel' && !/^[6-9]\d{9}$/.test(text)) return `Enter ${inSentence(label)} as 10 digits, like 9876543210`;
  if (field.kind === 'count' && !/^\d{1,5}$/.test(text)) return `${label} must be a whole number`;
  if (field.kind === 'amount' && !/^\d{1,9}(\.\d{1,2})?$/.test(text)) return `${label} must be an amount in rupees, like 1750 or 1750.50`;
  if (field.format && !field.format.pattern.test(text)) return field.format.message;
  return field.check ? field.check(text, fields) : null;
}

/** Errors of one section, in the order the fields appear. */
export function validateSection(portal: PortalSpec, section: SectionSpec, fields: FieldValues, layout: LabLayout): FieldError[] {
  const allKeys = portal.fields.map((f) => f.key);
  const effective = applySameAs(fields, allKeys);
  const errors: FieldError[] = [];
  for (const key of sectionKeys(section)) {
    const field = portal.fields.find((f) => f.key === key);
    if (!field) continue;
    const controller = sameAsControlling(key, allKeys);
    const copied = controller !== null && effective[controller] === true;
    const message = validateField(field, effective, layout, copied);
    if (message) errors.push({ field: key, message, section: section.slug });
  }
  return errors;
}

/** Errors of the whole application, section by section. */
export function validateApplication(portal: PortalSpec, layout: LabLayout, fields: FieldValues): FieldError[] {
  return portal.sections[layout].flatMap((section) => validateSection(portal, section, fields, layout));
}
