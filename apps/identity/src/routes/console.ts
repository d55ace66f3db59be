import { createHash } from 'node:crypto';
import { MCP_SCOPE } from '@svc/auth';
import { NotFoundError, UnauthorizedError } from '@svc/tool-kit';
import express, { type Response, type Router } from 'express';
import { logVerification, verifyAnchoredProject } from '../checkpoints/verify';
import type { IdentityContext } from '../context';
import { pageOf, parseRequest, StepUpRequiredError } from '../http';
import { randomSecret } from '../ids';
import {
  ingestKeyAnswer,
  ingestKeyOriginsAnswer,
  logIngestKeyRevoked,
  logOriginsChange,
} from '../ingest-key-answer';
import { revokeEverywhere } from '../invalidation/revoke-everywhere';
import { issueToken } from '../issue-token';
import type { AuthorizationServer } from '../oauth/authorization-server';
import { addConsentRoutes } from '../oauth/consent';
import { passwordGuard } from '../password-guard';
import { decoyPasswordHash, verifyPassword } from '../passwords';
import {
  allowedOriginsBody,
  consoleAuditQuery,
  consoleIngestKeyBody,
  consoleNamesBody,
  consoleTokenBody,
  loginBody,
  stepUpBody,
} from '../schemas';
import { listAuditNewestFirst } from '../store/audit';
import { createIngestKey, deactivateIngestKey, setAllowedOrigins } from '../store/ingest-keys';
import { namesInOrg, withNames } from '../store/names';
import { getOrg } from '../store/orgs';
import { getProject, listOrgProjects, type Project } from '../store/projects';
import { createSession, endSession, findLiveSession, setStepUp } from '../store/sessions';
import { consoleSessionTokenIds, getToken, listConsoleTokens } from '../store/tokens';
import { findUserByEmail, getUser } from '../store/users';

const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const STEP_UP_WINDOW_MS = 5 * 60 * 1000;
const API_SCOPE = 'api:read';

interface ConsoleSession {
  sha256: string;
  userId: string;
  orgId: string;
  stepUpUntil: Date | null;
}

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
const sessionOf = (res: Response) => res.locals.session as ConsoleSession;

/** The human-facing API of the web console: session bearer from login, never an MCP token. */
export function consoleRouter(ctx: IdentityContext, oauth: AuthorizationServer): Router {
  const router = express.Router();
  const passwords = passwordGuard(ctx);

  router.post('/v1/login', async (req, res) => {
    const body = parseRequest(loginBody, req.body);
    const address = ctx.clientAddress(req);
    const user = await findUserByEmail(ctx.db, body.email);
    // An unknown email is checked (against a decoy) and throttled exactly as a known one.
    const matches = await passwords.check({ kind: 'login', account: body.email, address }, async () => {
      const ok = await verifyPassword(body.password, user?.password_hash ?? (await decoyPasswordHash()));
      return ok && user !== undefined;
    });
    if (!user || !matches) throw new UnauthorizedError('bad_credentials');
    const sessionToken = `svc_ses_${randomSecret(32)}`;
    const now = ctx.clock();
    const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
    await createSession(ctx.db, { sha256: sha256(sessionToken), userId: user.user_id, expiresAt }, now);
    res.json({ session_token: sessionToken, expires_at: expiresAt.toISOString() });
  });

  // Everything below needs a live session.
  router.use(async (req, res, next) => {
    const [scheme, value, ...rest] = (req.get('authorization') ?? '').trim().split(/\s+/);
    if (scheme?.toLowerCase() !== 'bearer' || !value || rest.length > 0) {
      throw new UnauthorizedError('missing_session');
    }
    const hash = sha256(value);
    const session = await findLiveSession(ctx.db, hash, ctx.clock());
    if (!session) throw new UnauthorizedError('invalid_session');
    res.locals.session = {
      sha256: hash,
      userId: session.user_id,
      orgId: session.org_id,
      stepUpUntil: session.step_up_until,
    } satisfies ConsoleSession;
    next();
  });

  const requireStepUp = (session: ConsoleSession) => {
    if (!session.stepUpUntil || session.stepUpUntil.getTime() <= ctx.clock().getTime()) {
      throw new StepUpRequiredError();
    }
  };

  // Projects of other orgs are indistinguishable from unknown ones.
  const projectOf = async (session: ConsoleSession, projectId: string): Promise<Project> => {
    const project = await getProject(ctx.db, projectId);
    if (!project || project.org_id !== session.orgId) throw new NotFoundError('Unknown project.');
    return project;
  };

  // The OAuth consent page's calls: approve needs the same step-up as making a token here.
  addConsentRoutes(router, ctx, oauth, { sessionOf, requireStepUp, projectOf });

  // Who is signed in, and the projects they may open (their org's).
  router.get('/v1/me', async (_req, res) => {
    const session = sessionOf(res);
    const [user, org, projects] = await Promise.all([
      getUser(ctx.db, session.userId),
      getOrg(ctx.db, session.orgId),
      listOrgProjects(ctx.db, session.orgId),
    ]);
    res.json({
      user_id: session.userId,
      email: user?.email ?? null,
      org_id: session.orgId,
      org_name: org?.name ?? null,
      projects: projects.map((p) => ({ project_id: p.project_id, name: p.name })),
      step_up_until: session.stepUpUntil?.toISOString() ?? null,
    });
  });

  // Ends the session and revokes the tokens the console made for it, everywhere, before answering.
  router.post('/v1/logout', async (_req, res) => {
    const session = sessionOf(res);
    const tokenIds = await consoleSessionTokenIds(ctx.db, session.sha256);
    await endSession(ctx.db, session.sha256);
    for (const tokenId of tokenIds) await revokeEverywhere(ctx, tokenId);
    res.status(204).end();
  });

  router.post('/v1/step-up', async (req, res) => {
    const { password } = parseRequest(stepUpBody, req.body);
    const address = ctx.clientAddress(req);
    const session = sessionOf(res);
    const user = await getUser(ctx.db, session.userId);
    if (!user) throw new UnauthorizedError('invalid_session');
    // The same counters as the account's sign-in: a stolen session is no way around them.
    const matches = await passwords.check({ kind: 'step_up', account: user.email, address }, () =>
      verifyPassword(password, user.password_hash),
    );
    if (!matches) throw new UnauthorizedError('step_up_failed');
    const until = new Date(ctx.clock().getTime() + STEP_UP_WINDOW_MS);
    await setStepUp(ctx.db, session.sha256, until);
    res.json({ step_up_until: until.toISOString() });
  });

  router.post('/v1/projects/:project_id/mcp-tokens', async (req, res) => {
    const session = sessionOf(res);
    const project = await projectOf(session, req.params.project_id);
    requireStepUp(session);
    const body = parseRequest(consoleTokenBody, req.body);
    const issued = await issueToken(
      ctx.db,
      {
        projectId: project.project_id,
        userId: session.userId,
        name: body.name,
        days: body.days,
        scopes: [MCP_SCOPE],
      },
      ctx.clock(),
    );
    res.status(201).json({
      token: issued.token,
      token_id: issued.token_id,
      scope: MCP_SCOPE,
      expires_at: issued.expires_at,
    });
  });

  router.get('/v1/projects/:project_id/mcp-tokens', async (req, res) => {
    const project = await projectOf(sessionOf(res), req.params.project_id);
    res.json({ items: await listConsoleTokens(ctx.db, project.project_id, MCP_SCOPE) });
  });

  // The project's tool-call audit trail, newest first (`before_seq` pages back), each record with
  // who called in words: the person's email and the token's name (looked up, not stored: the chain
  // holds ids only). Ids of another org stay unnamed.
  router.get('/v1/projects/:project_id/audit', async (req, res) => {
    const session = sessionOf(res);
    const project = await projectOf(session, req.params.project_id);
    const query = parseRequest(consoleAuditQuery, req.query);
    const items = await listAuditNewestFirst(ctx.db, project.project_id, {
      limit: query.limit + 1,
      beforeSeq: query.before_seq,
    });
    const page = pageOf(items, query.limit);
    res.json({ ...page, items: await withNames(ctx.db, session.orgId, page.items) });
  });

  // Names for ids that records of other services carry (recall's audit trail): one lookup for a
  // page, answering only what belongs to the session's org.
  router.post('/v1/names', async (req, res) => {
    const body = parseRequest(consoleNamesBody, req.body);
    res.json(
      await namesInOrg(ctx.db, sessionOf(res).orgId, { userIds: body.user_ids, tokenIds: body.token_ids }),
    );
  });

  // The hash chain and its signed checkpoints checked end to end, as `svc audit verify` does.
  router.get('/v1/projects/:project_id/audit/verify', async (req, res) => {
    const project = await projectOf(sessionOf(res), req.params.project_id);
    const checked = await verifyAnchoredProject(ctx.db, ctx.checkpoints, project.project_id);
    logVerification(ctx.logger, checked);
    res.json(checked);
  });

  router.delete('/v1/mcp-tokens/:token_id', async (req, res) => {
    const token = await getToken(ctx.db, req.params.token_id);
    if (!token || token.org_id !== sessionOf(res).orgId) throw new NotFoundError('Unknown token.');
    const revokedAt = await revokeEverywhere(ctx, token.token_id);
    res.json({ token_id: token.token_id, revoked_at: revokedAt!.toISOString() });
  });

  // General API tokens: no project and scope api:read, so MCP refuses them. Also a credential,
  // hence the same step-up rule as MCP tokens.
  router.post('/v1/api-tokens', async (req, res) => {
    const session = sessionOf(res);
    requireStepUp(session);
    const body = parseRequest(consoleTokenBody, req.body);
    const issued = await issueToken(
      ctx.db,
      { projectId: null, userId: session.userId, name: body.name, days: body.days, scopes: [API_SCOPE] },
      ctx.clock(),
    );
    res.status(201).json({
      token: issued.token,
      token_id: issued.token_id,
      scope: API_SCOPE,
      expires_at: issued.expires_at,
    });
  });

  router.post('/v1/projects/:project_id/ingest-keys', async (req, res) => {
    const project = await projectOf(sessionOf(res), req.params.project_id);
    // The body is optional: without one the key allows no browser origin.
    const body = parseRequest(consoleIngestKeyBody, req.body ?? {});
    const key = await createIngestKey(ctx.db, project.project_id, body.allowed_origins, ctx.clock());
    res.status(201).json(ingestKeyAnswer(key, ctx.ingestEndpoint));
  });

  // Keys of another project (of this org or another) answer like unknown ones.
  router.put('/v1/projects/:project_id/ingest-keys/:key_id/allowed-origins', async (req, res) => {
    const session = sessionOf(res);
    const project = await projectOf(session, req.params.project_id);
    const { allowed_origins } = parseRequest(allowedOriginsBody, req.body);
    const key = await setAllowedOrigins(ctx.db, req.params.key_id, allowed_origins, project.project_id);
    if (!key) throw new NotFoundError('Unknown ingest key.');
    logOriginsChange(ctx.logger, key, session.userId);
    res.json(ingestKeyOriginsAnswer(key));
  });

  // A key of another project (of this org or another) answers like an unknown one.
  router.post('/v1/projects/:project_id/ingest-keys/:key_id/revoke', async (req, res) => {
    const session = sessionOf(res);
    const project = await projectOf(session, req.params.project_id);
    const key = await deactivateIngestKey(ctx.db, req.params.key_id, project.project_id);
    if (!key) throw new NotFoundError('Unknown ingest key.');
    logIngestKeyRevoked(ctx.logger, key, session.userId);
    res.json(ingestKeyOriginsAnswer(key));
  });

  return router;
}
