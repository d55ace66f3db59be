import { NotFoundError, UserInputError } from '@svc/errors';
import express, { type Router } from 'express';
import type { IdentityContext } from '../context';
import { parseRequest } from '../http';
import { randomSecret } from '../ids';
import {
  ingestKeyAnswer,
  ingestKeyOriginsAnswer,
  logIngestKeyRevoked,
  logOriginsChange,
} from '../ingest-key-answer';
import { revokeEverywhere } from '../invalidation/revoke-everywhere';
import { issueToken } from '../issue-token';
import { hashPassword } from '../passwords';
import {
  allowedOriginsBody,
  bootstrapBody,
  capabilityBody,
  capabilityName,
  createIngestKeyBody,
  createOrgBody,
  createProjectBody,
  createTokenBody,
  createUserBody,
  projectQuery,
} from '../schemas';
import { createIngestKey, deactivateIngestKey, setAllowedOrigins } from '../store/ingest-keys';
import { recordInvalidation } from '../store/invalidations';
import {
  createOrg,
  enabledCapabilities,
  findOrgByName,
  firstOrg,
  getOrg,
  setCapability,
} from '../store/orgs';
import { createProject, findProjectByName, getProject } from '../store/projects';
import { listTokens } from '../store/tokens';
import { createUser, findUserByEmail } from '../store/users';

// Serializes the "find or create" admin operations, so two concurrent first starts cannot both
// create the default org (PGlite serializes anyway; on a server this lock does it).
const SETUP_LOCK_KEY = 7_340_913;
const DEFAULT_ORG_NAME = 'Default organization';

const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === '23505';

/** Operator endpoints (the `pnpm svc` CLI, the standalone's seeding), behind the internal secret. */
export function adminRouter(ctx: IdentityContext): Router {
  const router = express.Router();

  router.post('/orgs', async (req, res) => {
    const { name } = parseRequest(createOrgBody, req.body);
    res.status(201).json(await createOrg(ctx.db, name, ctx.clock()));
  });

  router.put('/orgs/:org_id/capabilities/:capability', async (req, res) => {
    const capability = parseRequest(capabilityName, req.params.capability);
    const { enabled } = parseRequest(capabilityBody, req.body);
    const orgId = req.params.org_id;
    const { capabilities, seq } = await ctx.db.transaction(async (tx) => {
      if (!(await getOrg(tx, orgId))) throw new NotFoundError('Unknown organization.');
      await setCapability(tx, orgId, capability, enabled, ctx.clock());
      // Switching a capability on or off: every gateway re-reads the org's tokens.
      const seq = await recordInvalidation(tx, { kind: 'org', org_id: orgId });
      return { capabilities: await enabledCapabilities(tx, orgId), seq };
    });
    await ctx.invalidations.published(seq);
    res.json({ org_id: orgId, capabilities });
  });

  router.post('/users', async (req, res) => {
    const body = parseRequest(createUserBody, req.body);
    const passwordHash = await hashPassword(body.password);
    if (!(await getOrg(ctx.db, body.org_id))) throw new NotFoundError('Unknown organization.');
    try {
      const user = await createUser(
        ctx.db,
        { email: body.email, passwordHash, orgId: body.org_id },
        ctx.clock(),
      );
      res.status(201).json({ user_id: user.user_id, email: user.email, org_id: user.org_id });
    } catch (err) {
      if (isUniqueViolation(err)) throw new UserInputError('A user with this email already exists.');
      throw err;
    }
  });

  router.post('/projects', async (req, res) => {
    const body = parseRequest(createProjectBody, req.body);
    const project = await ctx.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [SETUP_LOCK_KEY]);
      const org = body.org_id
        ? await getOrg(tx, body.org_id)
        : ((await firstOrg(tx)) ?? (await createOrg(tx, DEFAULT_ORG_NAME, ctx.clock())));
      if (!org) throw new NotFoundError('Unknown organization.');
      return createProject(tx, org.org_id, body.name, ctx.clock());
    });
    res.status(201).json(project);
  });

  router.post('/tokens', async (req, res) => {
    const body = parseRequest(createTokenBody, req.body);
    const issued = await issueToken(
      ctx.db,
      {
        projectId: body.project_id,
        userId: body.user_id ?? null,
        name: body.name ?? 'token',
        days: body.days,
        ...(body.expires_in_seconds !== undefined ? { expiresInSeconds: body.expires_in_seconds } : {}),
        scopes: [...new Set(body.scopes)],
      },
      ctx.clock(),
    );
    res.status(201).json(issued);
  });

  router.get('/tokens', async (req, res) => {
    const { project_id } = parseRequest(projectQuery, req.query);
    if (!(await getProject(ctx.db, project_id))) throw new NotFoundError('Unknown project.');
    res.json({ items: await listTokens(ctx.db, project_id) });
  });

  router.post('/tokens/:token_id/revoke', async (req, res) => {
    const revokedAt = await revokeEverywhere(ctx, req.params.token_id);
    if (!revokedAt) throw new NotFoundError('Unknown token.');
    res.json({ token_id: req.params.token_id, revoked_at: revokedAt.toISOString() });
  });

  router.post('/ingest-keys', async (req, res) => {
    const body = parseRequest(createIngestKeyBody, req.body);
    if (!(await getProject(ctx.db, body.project_id))) throw new NotFoundError('Unknown project.');
    const key = await createIngestKey(ctx.db, body.project_id, body.allowed_origins, ctx.clock());
    res.status(201).json(ingestKeyAnswer(key, ctx.ingestEndpoint));
  });

  router.put('/ingest-keys/:key_id/allowed-origins', async (req, res) => {
    const { allowed_origins } = parseRequest(allowedOriginsBody, req.body);
    const key = await setAllowedOrigins(ctx.db, req.params.key_id, allowed_origins);
    if (!key) throw new NotFoundError('Unknown ingest key.');
    logOriginsChange(ctx.logger, key);
    res.json(ingestKeyOriginsAnswer(key));
  });

  router.post('/ingest-keys/:key_id/revoke', async (req, res) => {
    const key = await deactivateIngestKey(ctx.db, req.params.key_id);
    if (!key) throw new NotFoundError('Unknown ingest key.');
    logIngestKeyRevoked(ctx.logger, key);
    res.json(ingestKeyOriginsAnswer(key));
  });

  router.post('/bootstrap', async (req, res) => {
    const body = parseRequest(bootstrapBody, req.body);
    // Without a password the user gets a random one, returned once as `user_password`.
    const generatedPassword = body.user_password === undefined ? randomSecret(18) : undefined;
    const passwordHash = await hashPassword(body.user_password ?? generatedPassword!);
    const answer = await ctx.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [SETUP_LOCK_KEY]);
      const now = ctx.clock();
      let created = false;
      const existingUser = await findUserByEmail(tx, body.user_email);
      let org = existingUser ? await getOrg(tx, existingUser.org_id) : await findOrgByName(tx, body.org_name);
      if (!org) {
        org = await createOrg(tx, body.org_name, now);
        created = true;
      }
      let project = await findProjectByName(tx, org.org_id, body.project_name);
      if (!project) {
        project = await createProject(tx, org.org_id, body.project_name, now);
        created = true;
      }
      const user =
        existingUser ??
        (await createUser(tx, { email: body.user_email, passwordHash, orgId: org.org_id }, now));
      if (!existingUser) created = true;
      return {
        org_id: org.org_id,
        project_id: project.project_id,
        user_id: user.user_id,
        created,
        newUser: !existingUser,
      };
    });
    const { newUser, ...rest } = answer;
    res.json(newUser && generatedPassword ? { ...rest, user_password: generatedPassword } : rest);
  });

  return router;
}
