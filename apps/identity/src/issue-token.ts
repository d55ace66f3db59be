import { generateToken, hashToken } from '@svc/auth';
import { NotFoundError, UserInputError } from '@svc/errors';
import type { Postgres } from '@svc/postgres';
import { newId } from './ids';
import { getProject } from './store/projects';
import { insertToken } from './store/tokens';
import { getUser } from './store/users';

export const DEFAULT_TOKEN_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface IssueTokenInput {
  projectId: string | null;
  userId: string | null;
  name: string;
  days: number;
  /** When set, wins over `days`. */
  expiresInSeconds?: number;
  scopes: string[];
  /** A web console session's own token (its SHA-256): revoked at logout, not listed on the MCP page. */
  consoleSession?: string;
  /** The one gateway MCP resource the token is for (the console's assistant); unset: any gateway. */
  audience?: string;
}

export interface IssuedToken {
  token: string;
  token_id: string;
  name: string;
  project_id: string | null;
  scopes: string[];
  expires_at: string;
}

/**
 * Creates a token and returns its value: the only time it exists outside the caller's hands,
 * since only its SHA-256 is stored. The token's org is its project's, else its user's.
 */
export async function issueToken(db: Postgres, input: IssueTokenInput, now: Date): Promise<IssuedToken> {
  return db.transaction(async (tx) => {
    const project = input.projectId === null ? undefined : await getProject(tx, input.projectId);
    if (input.projectId !== null && !project) throw new NotFoundError('Unknown project.');
    const user = input.userId === null ? undefined : await getUser(tx, input.userId);
    if (input.userId !== null && !user) throw new NotFoundError('Unknown user.');
    if (project && user && project.org_id !== user.org_id) {
      throw new UserInputError('The user does not belong to the organization of the project.');
    }
    const token = generateToken();
    const row = {
      token_id: newId('tok'),
      name: input.name,
      scopes: input.scopes,
      org_id: project?.org_id ?? user?.org_id ?? null,
      project_id: input.projectId,
      user_id: input.userId,
      last_four: token.slice(-4),
      created_at: now,
      expires_at: new Date(
        now.getTime() +
          (input.expiresInSeconds !== undefined ? input.expiresInSeconds * 1000 : input.days * DAY_MS),
      ),
      revoked_at: null,
    };
    await insertToken(tx, row, hashToken(token), input.consoleSession, input.audience);
    return {
      token,
      token_id: row.token_id,
      name: row.name,
      project_id: row.project_id,
      scopes: row.scopes,
      expires_at: row.expires_at.toISOString(),
    };
  });
}
