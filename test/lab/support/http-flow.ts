import { labAccount, PORTAL_HOSTS, PORTALS, type Lab, type PortalId } from '../../../lab/index';
import { sectionKeys } from '../../../lab/forms/spec';
import type { LabLayout } from '../../../lab/variants';
import type { CaseFile } from '../../../src/shared/case-file';
import { LabClient, type Reply } from './http-client';

/** Drives a portal over plain HTTP (no browser): for the server-side behaviour tests. */

export function portalClient(lab: Lab, portal: PortalId): LabClient {
  return new LabClient(lab.port, PORTAL_HOSTS[portal]);
}

export async function httpSignIn(client: LabClient, clientId: string, password = labAccount(clientId).password): Promise<Reply> {
  await client.get('/sign-in');
  return client.post('/sign-in', { username: clientId, password });
}

/** Posts every section of the layout with the case's values (declarations ticked). */
export async function httpFillAll(client: LabClient, caseFile: CaseFile, layout: LabLayout): Promise<void> {
  const portal = PORTALS[caseFile.portal as PortalId];
  await client.get('/apply/start');
  for (const section of portal.sections[layout]) {
    const form: Record<string, string | boolean | undefined> = { _action: 'next' };
    for (const key of sectionKeys(section)) {
      const field = portal.fields.find((f) => f.key === key)!;
      form[key] = field.kind === 'declaration' ? true : caseFile.fields[key];
    }
    const reply = await client.post(`/apply/${section.slug}`, form);
    const page = await client.get(reply.location!);
    if (page.body.includes('role="alert"')) throw new Error(`section ${section.slug} has errors:\n${page.body.match(/<ul>.*?<\/ul>/s)?.[0]}`);
  }
}
