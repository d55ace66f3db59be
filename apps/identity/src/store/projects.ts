import type { Queryable } from '@svc/postgres';
import { newId } from '../ids';

export interface Project {
  project_id: string;
  org_id: string;
  name: string;
}

export async function createProject(q: Queryable, orgId: string, name: string, now: Date): Promise<Project> {
  const project = { project_id: newId('prj'), org_id: orgId, name };
  await q.query('INSERT INTO projects (project_id, org_id, name, created_at) VALUES ($1, $2, $3, $4)', [
    project.project_id,
    orgId,
    name,
    now,
  ]);
  return project;
}

export async function getProject(q: Queryable, projectId: string): Promise<Project | undefined> {
  const { rows } = await q.query<Project>(
    'SELECT project_id, org_id, name FROM projects WHERE project_id = $1',
    [projectId],
  );
  return rows[0];
}

export async function findProjectByName(
  q: Queryable,
  orgId: string,
  name: string,
): Promise<Project | undefined> {
  const { rows } = await q.query<Project>(
    'SELECT project_id, org_id, name FROM projects WHERE org_id = $1 AND name = $2 ORDER BY created_order LIMIT 1',
    [orgId, name],
  );
  return rows[0];
}

/** An org's projects, oldest first. */
export async function listOrgProjects(q: Queryable, orgId: string): Promise<Project[]> {
  const { rows } = await q.query<Project>(
    'SELECT project_id, org_id, name FROM projects WHERE org_id = $1 ORDER BY created_order',
    [orgId],
  );
  return rows;
}
