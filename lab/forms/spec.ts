import type { PortalId } from '../hosts';
import type { LabLayout } from '../variants';

/** The data a portal form holds: text (dates as YYYY-MM-DD, option labels) or yes/no for checkboxes. */
export type FieldValues = Record<string, string | boolean>;

/**
 * `declaration` is a checkbox that must be ticked to submit; it is not a case field and is
 * left out of submission records (the case lists declarations by their label instead).
 */
export type FieldKind = 'text' | 'email' | 'tel' | 'count' | 'amount' | 'date' | 'radio' | 'select' | 'checkbox' | 'declaration';

export interface FieldSpec {
  /** The input's name, equal to the case-file field key. */
  readonly key: string;
  readonly kind: FieldKind;
  /** Label (or legend) in the original layout: normalises to the key. */
  readonly label: string;
  /** Label in the redesigned layout (default: the original label). Case files list it as an alias. */
  readonly label2?: string;
  /** Required (unless a ticked "same as" checkbox copies it, see same-as.ts). */
  readonly required?: boolean;
  readonly maxLength?: number;
  readonly format?: { readonly pattern: RegExp; readonly message: string };
  /** Further checks once the format is right: returns an error message or null. */
  readonly check?: (value: string, fields: FieldValues) => string | null;
  readonly hint?: string;
  /** Option labels of a radio group or select (the submitted value is the label). */
  readonly options?: readonly string[];
  /** Redesigned layout: the label-like text sits in the row but is not tied to the input. */
  readonly unlinkedLabel2?: boolean;
}

/**
 * What one section shows, in order: a field key, a group of checkboxes under one legend,
 * or (redesigned only) a row of fields labelled only by column headers.
 */
export type SectionItem =
  | string
  | { readonly group: string; readonly keys: readonly string[] }
  | { readonly columns: readonly string[] };

export interface SectionSpec {
  readonly slug: string;
  readonly title: string;
  readonly items: readonly SectionItem[];
}

/** Wording that differs between the layouts. */
export interface PortalWording {
  readonly startLink: string;
  readonly applicationsLink: string;
  readonly dashboardIntro: string;
}

export interface PortalSpec {
  readonly id: PortalId;
  readonly task: string;
  /** The department running the portal. */
  readonly department: string;
  /** The service's name, as the header shows it. */
  readonly service: string;
  /** Application numbers look like `SHP-2026-000123`. */
  readonly numberPrefix: string;
  readonly fields: readonly FieldSpec[];
  readonly sections: Readonly<Record<LabLayout, readonly SectionSpec[]>>;
  readonly wording: Readonly<Record<LabLayout, PortalWording>>;
  /** The client reference the applications list shows (e.g. the registration number). */
  reference(fields: FieldValues): string;
}

export function labelOf(field: FieldSpec, layout: LabLayout): string {
  return layout === 'redesigned' ? (field.label2 ?? field.label) : field.label;
}

/** Field keys an item shows. */
export function itemKeys(item: SectionItem): readonly string[] {
  if (typeof item === 'string') return [item];
  if ('group' in item) return item.keys;
  return item.columns;
}

export function sectionKeys(section: SectionSpec): string[] {
  return section.items.flatMap((item) => [...itemKeys(item)]);
}

/** The fields a submission records: every field except declarations. */
export function recordedFields(portal: PortalSpec): readonly FieldSpec[] {
  return portal.fields.filter((f) => f.kind !== 'declaration');
}

/** A blank value of every field (unchecked boxes are false). */
export function blankValues(portal: PortalSpec): FieldValues {
  const out: FieldValues = {};
  for (const f of portal.fields) out[f.key] = f.kind === 'checkbox' || f.kind === 'declaration' ? false : '';
  return out;
}
