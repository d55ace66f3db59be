import { NotFoundError } from '@svc/errors';
import type { Router } from 'express';
import type { IdentityContext } from '../../context';
import { parseRequest } from '../../http';
import {
  ingestKeyAnswer,
  ingestKeyOriginsAnswer,
  logIngestKeyRevoked,
  logOriginsChange,
} from '../../ingest-key-answer';
import { allowedOriginsBody, consoleIngestKeyBody } from '../../schemas';
import { createIngestKey, deactivateIngestKey, setAllowedOrigins } from '../../store/ingest-keys';
import type { SessionHelpers } from './session';

/** A project's ingest keys: made, their allowed origins replaced, revoked. */
export function addIngestKeyRoutes(router: Router, ctx: IdentityContext, s: SessionHelpers): void {
  router.post('/v1/projects/:project_id/ingest-keys', async (req, res) => {
    const project = await s.projectOf(s.sessionOf(res), req.params.project_id);
    // The body is optional: without one the key allows no browser origin.
    const body = parseRequest(consoleIngestKeyBody, req.body ?? {});
    const key = await createIngestKey(ctx.db, project.project_id, body.allowed_origins, ctx.clock());
    res.status(201).json(ingestKeyAnswer(key, ctx.ingestEndpoint));
  });

  // Keys of another project (of this org or another) answer like unknown ones.
  router.put('/v1/projects/:project_id/ingest-keys/:key_id/allowed-origins', async (req, res) => {
    const session = s.sessionOf(res);
    const project = await s.projectOf(session, req.params.project_id);
    const { allowed_origins } = parseRequest(allowedOriginsBody, req.body);
    const key = await setAllowedOrigins(ctx.db, req.params.key_id, allowed_origins, project.project_id);
    if (!key) throw new NotFoundError('Unknown ingest key.');
    logOriginsChange(ctx.logger, key, session.userId);
    res.json(ingestKeyOriginsAnswer(key));
  });

  // A key of another project (of this org or another) answers like an unknown one.
  router.post('/v1/projects/:project_id/ingest-keys/:key_id/revoke', async (req, res) => {
    const session = s.sessionOf(res);
    const project = await s.projectOf(session, req.params.project_id);
    const key = await deactivateIngestKey(ctx.db, req.params.key_id, project.project_id);
    if (!key) throw new NotFoundError('Unknown ingest key.');
    logIngestKeyRevoked(ctx.logger, key, session.userId);
    res.json(ingestKeyOriginsAnswer(key));
  });
}
