/**
 * Matching a control's label to a case-file field, the way a clerk reads a form:
 * case, punctuation, underscores, required-marks and "(optional)" do not matter.
 */
export function normaliseLabel(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/\((optional|required)\)/g, ' ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export class FieldNames {
  private readonly byLabel = new Map<string, string>();

  constructor(fields: Iterable<string>, aliases: Record<string, string[]>) {
    for (const field of fields) {
      this.add(field, field);
      for (const alias of aliases[field] ?? []) this.add(alias, field);
    }
  }

  private add(label: string, field: string): void {
    const key = normaliseLabel(label);
    if (key && !this.byLabel.has(key)) this.byLabel.set(key, field);
  }

  /** The case field a control label names, if any. */
  fieldFor(label: string | undefined): string | undefined {
    if (!label) return undefined;
    return this.byLabel.get(normaliseLabel(label));
  }
}

export function sameText(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && normaliseLabel(a) === normaliseLabel(b);
}
