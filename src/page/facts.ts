/** What the page code reads from one frame (types only: the observer parses the result with zod). */

export interface DomControl {
  role: string;
  tag: string;
  /** Lower-case `type` of an input. */
  type?: string;
  /** Current value; never read for password inputs. */
  value?: string;
  checked?: boolean | 'mixed';
  /** Flags are present only when true (a smaller result to carry out of the page). */
  required?: true;
  invalid?: true;
  readonly?: true;
  gated?: true;
  /** Raw href attribute of a link (resolved in Node against `baseUrl`). */
  href?: string;
  /** Raw action of a submit button's form (formaction or form action); '' = the document's own URL. */
  action?: string;
  /** Option labels of a <select>. */
  options?: string[];
  selected?: string[];
  /** Has a <label>, aria-label or aria-labelledby (a real name, not placeholder or title). */
  labelled?: true;
  placeholder?: string;
  /** An input's maxlength, when it has one. */
  maxLength?: number;
  /** An input's pattern attribute. */
  pattern?: string;
  /** Text of the elements aria-describedby names that are not errors (a hint such as "For example, 27 3 2007"). */
  hint?: string;
  title?: string;
  /** Label-like text from visual context (row text, column header, icon alt) for unlabelled controls. */
  inferred?: string;
  /**
   * The text of the control's own `<label>` where an `aria-label` of other words replaced it as the
   * accessible name (USWDS's file input names itself "Drag file here or choose from folder"): what the clerk reads.
   */
  ownLabel?: string;
  /** `name` attribute of a radio input (its group). */
  radioName?: string;
  /** The blocks the control sits in, closest first (see sections.ts); absent when none. */
  sections?: DomSection[];
}

/** A block a control sits in: its label (legend, group name, opening heading) and its place among equal sibling blocks. */
export interface DomSection {
  label: string;
  /** From 1, when the block is one of two or more siblings asking the same questions. */
  position?: number;
}

export interface DomClickable {
  /** Its visible text, or aria-label / title / icon alt when it has none. */
  text: string;
  gated?: true;
}

export interface DomError {
  message: string;
  /** Index in `controls` of the field the error is about, or -1. */
  control: number;
  /** Label text of the field when it is not among `controls`. */
  label?: string;
  /** Legend / radiogroup name of the field's group. */
  group?: string;
}

export interface DomStep {
  current?: string;
  index?: number;
  count?: number;
  valueText?: string;
}

export interface DomFacts {
  url: string;
  /** The document's base URL, for resolving raw hrefs and actions. */
  baseUrl: string;
  title: string;
  /** Controls and iframes (role "iframe"), in snapshot order. */
  controls: DomControl[];
  clickables: DomClickable[];
  /** Error summary / role=alert items. */
  alerts: DomError[];
  /** Fields marked aria-invalid, with their error text. */
  invalid: DomError[];
  passwordFields: number;
  anyGated: boolean;
  step: DomStep;
}

export interface DomFactsOptions {
  /** The aria roles the observer lists as controls (aria-tree's CONTROL_ROLES). */
  controlRoles: string[];
}
