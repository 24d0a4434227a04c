import { CONTROL_HOST, PHONE_HOST, PORTAL_IDS } from './hosts';
import type { Lab } from './lab';
import { PORTALS } from './portals/registry';

/** The lines the CLI's `lab` command prints: where everything is and how to sign in. */
export function describeLab(lab: Lab): string {
  const rows: Array<[string, string]> = [
    ...PORTAL_IDS.map((id): [string, string] => [`${PORTALS[id].service} (${PORTALS[id].task})`, `${lab.origin(id)}/`]),
    ['Demo phone: one-time codes', `${lab.originOf(PHONE_HOST)}/`],
    ['Control API (header X-Lab-Token)', `${lab.originOf(CONTROL_HOST)}/api`],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  return [
    `Portal lab listening on ${lab.host}:${lab.port}`,
    `Start Chromium with --host-resolver-rules="${lab.hostResolverRules}" so these names reach it:`,
    ...rows.map(([name, url]) => `  ${name.padEnd(width)}  ${url}`),
    `Sign in as any client id, password Lab!<client id>-pw7. Any other hostname on port ${lab.port} is counted as an attacker.`,
    `Control token: ${lab.controlToken}`,
  ].join('\n');
}
