import { createHash } from 'node:crypto';
import { auditEntrySchema } from '@svc/audit';
import {
  checkOAuthAccessTokenFormat,
  checkTokenFormat,
  hashToken,
  MCP_SCOPE,
  tokenFingerprint,
} from '@svc/auth';
import { BackendUnavailableError, NotFoundError } from '@svc/errors';
import express, { type Router } from 'express';
import { z } from 'zod';
import { logVerification, verifyAnchoredAll, verifyAnchoredProject } from '../checkpoints/verify';
import type { IdentityContext } from '../context';
import { pageOf, parseRequest } from '../http';
import { issueToken } from '../issue-token';
import type { OAuthIntrospection } from '../oauth/introspect';
import {
  auditListQuery,
  auditVerifyQuery,
  consoleToolTokenBody,
  introspectBody,
  invalidationAckBody,
  sessionIntrospectBody,
} from '../schemas';
import { type AppendedHead, appendAudit, type KnownHeads, listAudit } from '../store/audit';
import { getIngestKey } from '../store/ingest-keys';
import { enabledCapabilities, getOrg } from '../store/orgs';
import { getProject } from '../store/projects';
import { findLiveSession } from '../store/sessions';
import { findTokenByHash } from '../store/tokens';

const auditBatch = z.strictObject({ records: z.array(auditEntrySchema).min(1).max(1000) });

/** Service-to-service endpoints; the internal secret is checked before this router. */
export function internalRouter(
  ctx: IdentityContext,
  introspectOAuth: (token: string) => Promise<OAuthIntrospection>,
): Router {
  const router = express.Router();
  const introspections = ctx.metrics.counter('identity_introspections_total', 'Token introspections', [
    'result',
  ]);
  const auditWritten = ctx.metrics.counter('identity_audit_records_written_total', 'Audit records committed');
  const checkpointSeconds = ctx.metrics.histogram(
    'identity_audit_checkpoint_write_seconds',
    'Time an audit append waits for its checkpoint to be on disk',
    [],
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
  );
  const checkpointFailures = ctx.metrics.counter(
    'identity_audit_checkpoint_failures_total',
    'Audit appends committed but answered 503 because their checkpoint could not be written',
  );

  // Each project's chain head as this process last committed it: the next append of that project
  // starts there, one statement instead of two (store/audit.ts).
  const knownHeads: KnownHeads = new Map();

  // The append is committed; its checkpoint is written before the answer, so no result leaves a
  // gateway before its record is anchored outside the database too. Should the write fail, the
  // records stay committed and the answer is a 503: the gateway's retry appends nothing new and
  // anchors the head again.
  async function anchor(heads: AppendedHead[]): Promise<void> {
    const at = ctx.clock().toISOString();
    const started = performance.now();
    try {
      await ctx.checkpoints.append(heads.map((head) => ({ ...head, at })));
    } catch (err) {
      checkpointFailures.inc();
      ctx.logger.error(
        { event: 'audit_checkpoint_failed', err, location: ctx.checkpoints.location },
        'audit records committed but their checkpoint could not be written',
      );
      throw new BackendUnavailableError('audit checkpoint log', 1, { cause: err });
    } finally {
      checkpointSeconds.observe({}, (performance.now() - started) / 1000);
    }
  }

  router.post('/v1/introspect', async (req, res) => {
    const { token } = parseRequest(introspectBody, req.body);
    const refuse = (reason: string) => {
      introspections.inc({ result: reason });
      // A security event: the fingerprint lets operators correlate attempts; the token never appears.
      ctx.logger.warn(
        { event: 'introspection_failed', reason, token_fp: tokenFingerprint(token) },
        'token refused',
      );
      res.json({ active: false });
    };
    // An MCP client's OAuth access token answers exactly as a pasted token bound to its project.
    if (checkOAuthAccessTokenFormat(token)) {
      const { reason, ...answer } = { reason: undefined, ...(await introspectOAuth(token)) };
      if (!answer.active) return refuse(`oauth_${reason}`);
      introspections.inc({ result: 'active' });
      res.json(answer);
      return;
    }
    if (!checkTokenFormat(token)) return refuse('malformed');
    // Read fresh every time (no cache), so a revocation is seen by the very next introspection.
    const row = await findTokenByHash(ctx.db, hashToken(token));
    if (!row) return refuse('unknown');
    if (row.revoked_at) return refuse('revoked');
    if (row.expires_at.getTime() <= ctx.clock().getTime()) return refuse('expired');
    introspections.inc({ result: 'active' });
    res.json({
      active: true,
      token_id: row.token_id,
      user_id: row.user_id,
      org_id: row.org_id,
      project_id: row.project_id,
      scopes: row.scopes,
      expires_at: row.expires_at.toISOString(),
      capabilities: row.capabilities,
      // The console's own token of a session (console-sessions/tool-token): only the console
      // service can have one, so the gateway audits its calls as the console's. Left out for every
      // other token, so a gateway that does not know the field still reads their answers.
      ...(row.console ? { console: true } : {}),
    });
  });

  // Services with a console side of their own (recall: trigger a recall, download a file) ask here
  // who a console session is and whether it may act on the project. Another org's project answers
  // like an unknown one.
  router.post('/v1/console-sessions/introspect', async (req, res) => {
    const body = parseRequest(sessionIntrospectBody, req.body);
    const hash = createHash('sha256').update(body.session_token, 'utf8').digest('hex');
    const session = await findLiveSession(ctx.db, hash, ctx.clock());
    if (!session) {
      res.json({ active: false });
      return;
    }
    const project = await getProject(ctx.db, body.project_id);
    res.json({
      active: true,
      user_id: session.user_id,
      org_id: session.org_id,
      project_in_org: project?.org_id === session.org_id,
      capabilities: await enabledCapabilities(ctx.db, session.org_id),
      step_up_until: session.step_up_until?.toISOString() ?? null,
    });
  });

  // The web console runs tools through a gateway like any client (audited, capability-gated), so
  // it needs an MCP token of the signed-in user for the project. Only the console service can ask
  // (internal secret): a session alone never yields a token without the step-up of the MCP page.
  // The token lives as long as the session at most, never leaves the console's server, and is
  // revoked at logout.
  router.post('/v1/console-sessions/tool-token', async (req, res) => {
    const body = parseRequest(consoleToolTokenBody, req.body);
    const hash = createHash('sha256').update(body.session_token, 'utf8').digest('hex');
    const now = ctx.clock();
    const session = await findLiveSession(ctx.db, hash, now);
    const project = session && (await getProject(ctx.db, body.project_id));
    if (!session || !project || project.org_id !== session.org_id) {
      // No live session, or not its org's project: nothing to say which.
      throw new NotFoundError('No live console session for this project.');
    }
    const issued = await issueToken(
      ctx.db,
      {
        projectId: project.project_id,
        userId: session.user_id,
        name: 'web console',
        days: 1,
        expiresInSeconds: Math.max(1, Math.floor((session.expires_at.getTime() - now.getTime()) / 1000)),
        scopes: [MCP_SCOPE],
        consoleSession: hash,
      },
      now,
    );
    res.status(201).json({ token: issued.token, token_id: issued.token_id, expires_at: issued.expires_at });
  });

  // The gateways' token caches (docs/decisions.md, "Token cache"): a stream of invalidations, and
  // the acknowledgements that keep each gateway's lease.
  router.get('/v1/invalidations', async (_req, res) => {
    await ctx.invalidations.subscribe(res);
  });

  router.post('/v1/invalidations/ack', async (req, res) => {
    const { subscriber_id, seq } = parseRequest(invalidationAckBody, req.body);
    if (!(await ctx.invalidations.acknowledge(subscriber_id, seq))) {
      // The lease ran out (or never existed): the gateway must subscribe again, cache empty.
      res.status(410).json({ error: 'lease_expired', message: 'Subscribe again.' });
      return;
    }
    res.json({ lease_ms: ctx.invalidations.timing.leaseMs });
  });

  router.get('/v1/orgs/:org_id/capabilities', async (req, res) => {
    const org = await getOrg(ctx.db, req.params.org_id);
    if (!org) throw new NotFoundError('Unknown organization.');
    res.json({ org_id: org.org_id, capabilities: await enabledCapabilities(ctx.db, org.org_id) });
  });

  router.post('/v1/audit', async (req, res) => {
    const { records } = parseRequest(auditBatch, req.body);
    // Answer only after the commit: the gateway releases a tool result on this 201 alone.
    const { written, heads } = await appendAudit(ctx.db, records, knownHeads);
    auditWritten.inc({}, written);
    await anchor(heads);
    res.status(201).json({ written });
  });

  router.get('/v1/audit', async (req, res) => {
    const query = parseRequest(auditListQuery, req.query);
    const items = await listAudit(ctx.db, query.project_id, {
      limit: query.limit + 1,
      afterSeq: query.after_seq,
    });
    res.json(pageOf(items, query.limit));
  });

  router.get('/v1/audit/verify', async (req, res) => {
    const { project_id } = parseRequest(auditVerifyQuery, req.query);
    const checked =
      project_id === undefined
        ? await verifyAnchoredAll(ctx.db, ctx.checkpoints)
        : await verifyAnchoredProject(ctx.db, ctx.checkpoints, project_id);
    logVerification(ctx.logger, checked);
    res.json(checked);
  });

  router.get('/v1/ingest-keys/:key_id', async (req, res) => {
    const key = await getIngestKey(ctx.db, req.params.key_id);
    if (!key) throw new NotFoundError('Unknown ingest key.');
    res.json({
      key_id: key.key_id,
      project_id: key.project_id,
      secret: key.secret,
      active: key.active,
      allowed_origins: key.allowed_origins,
    });
  });

  return router;
}
