import type { Control, Observation } from '../../shared/observation';
import type { ControlIdentity } from '../../shared/route';
import type { Scrubber } from './page-signature';

/** Learning: the controls of the same read with the same role, scrubbed name and group. */
function sameAs(control: Control, role: string, name: string, group: string | undefined, scrub: Scrubber): boolean {
  return control.role === role && scrub.text(control.name) === name && scrub.optional(control.group) === group;
}

/** Following: the controls of this read the identity's role, name and group name (route text may come from another case). */
function named(control: Control, identity: ControlIdentity, scrub: Scrubber): boolean {
  return control.role === identity.role && scrub.matches(identity.name, control.name) && scrub.matches(identity.group, control.group);
}

/** What identifies `control` on this read, without its ref: role, scrubbed name, group, position among equals. */
export function identify(control: Control, observation: Observation, scrub: Scrubber): ControlIdentity {
  const name = scrub.text(control.name);
  const group = scrub.optional(control.group);
  const equals = observation.controls.filter((c) => sameAs(c, control.role, name, group, scrub));
  const nth = Math.max(0, equals.findIndex((c) => c.ref === control.ref));
  return { role: control.role, name, ...(group !== undefined ? { group } : {}), nth, of: Math.max(1, equals.length) };
}

/**
 * The control of this read that `identity` names, or a line on why there is none: no control
 * with that role, name and group, or a different number of them (the page is not the same).
 */
export function resolveIdentity(identity: ControlIdentity, observation: Observation, scrub: Scrubber): { control: Control } | { missing: string } {
  // Text as this case scrubs it first; then route text from another case (values, {value} marks).
  const exact = observation.controls.filter((c) => sameAs(c, identity.role, identity.name, identity.group, scrub));
  const equals = exact.length === identity.of ? exact : observation.controls.filter((c) => named(c, identity, scrub));
  const what = `${identity.role} "${identity.name}"${identity.group ? ` in "${identity.group}"` : ''}`;
  if (equals.length === 0) return { missing: `no ${what} on the page` };
  if (equals.length !== identity.of) return { missing: `${equals.length} × ${what} on the page, the route knows ${identity.of}` };
  const control = equals[identity.nth];
  return control ? { control } : { missing: `no ${what} number ${identity.nth + 1}` };
}
