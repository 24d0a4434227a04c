import { groupNamedIn, groupPath, groupsOf, parseGroupPath } from '../../../shared/case-groups';

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

/**
 * Label matching for a case with repeated groups: the plain fields and the member names of every
 * group (`full_name` for `partners[0].full_name`), so a "Full name" box matches whoever's block it is in.
 */
export function caseFieldNames(fields: Iterable<string>, aliases: Record<string, string[]>): FieldNames {
  const all = [...fields];
  const members = [...groupsOf(all).values()].flatMap((g) => [...g.members]);
  return new FieldNames([...all.filter((f) => parseGroupPath(f) === null), ...members], aliases);
}

/**
 * The case field a matched name stands for in a control's person block: in the block of person n
 * ("Partner 2"), member `full_name` is `partners[1].full_name` (of the group the block's label
 * names, else the one group that has the member); outside any block, the plain field, else the
 * first person's when only one group has the member. Undefined when that person has no such value
 * (a third partner's box for a case of two) or when it is ambiguous.
 */
export function fieldForPerson(name: string | undefined, fields: ReadonlySet<string>, section: { name: string; ordinal: number } | undefined): string | undefined {
  if (name === undefined) return undefined;
  const withMember = [...groupsOf(fields)].filter(([, g]) => g.members.has(name)).map(([g]) => g);
  if (withMember.length === 0) return fields.has(name) ? name : undefined;
  if (section) {
    const named = groupNamedIn(section.name, withMember);
    const paths = (named ? [named] : withMember).map((g) => groupPath(g, section.ordinal - 1, name)).filter((p) => fields.has(p));
    return paths.length === 1 ? paths[0] : undefined;
  }
  if (fields.has(name)) return name;
  const first = withMember.length === 1 ? groupPath(withMember[0]!, 0, name) : undefined;
  return first && fields.has(first) ? first : undefined;
}
