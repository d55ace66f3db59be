import type { Queryable } from '@svc/postgres';
import { newId } from '../ids';

export const CONTROLLED_CAPABILITY_NAMES = ['vis_trace', 'vis_recall', 'vis_ai_verifier'] as const;
export type ControlledCapability = (typeof CONTROLLED_CAPABILITY_NAMES)[number];

export interface Org {
  org_id: string;
  name: string;
}

export async function createOrg(q: Queryable, name: string, now: Date): Promise<Org> {
  const org = { org_id: newId('org'), name };
  await q.query('INSERT INTO orgs (org_id, name, created_at) VALUES ($1, $2, $3)', [org.org_id, name, now]);
  return org;
}

export async function getOrg(q: Queryable, orgId: string): Promise<Org | undefined> {
  const { rows } = await q.query<Org>('SELECT org_id, name FROM orgs WHERE org_id = $1', [orgId]);
  return rows[0];
}

export async function firstOrg(q: Queryable): Promise<Org | undefined> {
  const { rows } = await q.query<Org>('SELECT org_id, name FROM orgs ORDER BY created_order LIMIT 1');
  return rows[0];
}

export async function findOrgByName(q: Queryable, name: string): Promise<Org | undefined> {
  const { rows } = await q.query<Org>(
    'SELECT org_id, name FROM orgs WHERE name = $1 ORDER BY created_order LIMIT 1',
    [name],
  );
  return rows[0];
}

/** The org's enabled controlled capabilities, sorted; `base` is implied and never listed. */
export async function enabledCapabilities(q: Queryable, orgId: string): Promise<ControlledCapability[]> {
  const { rows } = await q.query<{ capability: ControlledCapability }>(
    'SELECT capability FROM org_capabilities WHERE org_id = $1 AND enabled ORDER BY capability',
    [orgId],
  );
  return rows.map((r) => r.capability);
}

export async function setCapability(
  q: Queryable,
  orgId: string,
  capability: ControlledCapability,
  enabled: boolean,
  now: Date,
): Promise<void> {
  await q.query(
    `INSERT INTO org_capabilities (org_id, capability, enabled, updated_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (org_id, capability) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = EXCLUDED.updated_at`,
    [orgId, capability, enabled, now],
  );
}
