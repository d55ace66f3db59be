/** @jsxRuntime automatic @jsxImportSource preact */
import { BackendUnavailableError, NotFoundError, UserInputError } from '@svc/errors';
import express, { type Request, type Response, type Router } from 'express';
import type { ConsoleDeps } from '../console-deps';
import type { Names } from '../identity-api';
import { pageContext } from '../page-context';
import { href, type PageContext, sendPage } from '../pages/layout';
import {
  DownloadFailedPage,
  type FileProblem,
  type Filters,
  type ListAnswer,
  type RecallAuditItem,
  RecallAuditPage,
  RecallFilePage,
  RecallNotDeployedPage,
  RecallPage,
} from '../pages/recall';
import type { RecallApi } from '../recall-api';
import { sessionOf } from '../session';
import { answerOf, pageStatusOf } from '../tool-answers';

// Reading goes through the recall tools on the gateway, like any client (so it is audited there,
// and a view is also recorded in recall's own trail); triggering and downloading are human-only
// and go to recall's console side with the person's session (recall-api.ts). They are never tools.

/** A file id as log.list_files gives them; anything else is no file, without asking anyone. */
const FILE_ID = /^rf_[0-9a-f]{24}$/;
/** A recall request id as recall answers it, for the notice after a trigger. */
const REQUEST_ID = /^rr_[0-9a-f]{8,64}$/;
const MAX_FILTER = 200;

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/** The filled filters of a GET form, as text (kept for the form and the paging links). */
export function filtersOf(query: Request['query'], names: readonly string[]): Filters {
  const filters: Filters = {};
  for (const name of names) {
    const value = text(query[name]).slice(0, MAX_FILTER);
    if (value !== '') filters[name] = value;
  }
  return filters;
}

/**
 * A tool's input from filters: whole numbers where the tool takes numbers. Anything else goes as
 * typed, so the gateway's 400 names the field and what it expects.
 */
export function toolInputOf(filters: Filters, numeric: readonly string[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    input[name] = numeric.includes(name) && /^\d{1,9}$/.test(value) ? Number(value) : value;
  }
  return input;
}

const FILE_FILTERS = ['device_id', 'user_id', 'date', 'q', 'limit'] as const;
const ENTRY_FILTERS = ['level', 'q', 'after_line', 'limit'] as const;
const AUDIT_FILTERS = ['action', 'file_id', 'limit'] as const;
const NUMERIC = ['limit', 'after_line'] as const;

/** The recall pages (`/recall`): files, their entries, downloads, triggers, the recall audit trail. */
export function recallRoutes(deps: ConsoleDeps): Router {
  const router = express.Router();
  router.get('/recall', filesRoute(deps));
  router.post('/recall/trigger', triggerRoute(deps));
  router.get('/recall/files/:file_id', entriesRoute(deps));
  // A POST, not a link: a download is an action recorded in the recall audit trail, so it needs the
  // session's CSRF token like every other action (and no prefetch or crawler can cause one).
  router.post('/recall/files/:file_id/download', downloadRoute(deps));
  router.get('/recall/audit', auditRoute(deps));
  return router;
}

/** Recall's console side, or the "not deployed" page sent (and undefined). */
function recallOr(deps: ConsoleDeps, res: Response, ctx: PageContext, status: number): RecallApi | undefined {
  if (!deps.recall) sendPage(res, <RecallNotDeployedPage ctx={ctx} />, status);
  return deps.recall;
}

/** A recall tool called on the gateway with the person's session, as any client calls it. */
function call(
  deps: ConsoleDeps,
  res: Response,
  ctx: PageContext,
  tool: string,
  input: Record<string, unknown>,
) {
  return answerOf(deps.tools, { session: sessionOf(res).token, projectId: ctx.projectId, tool, input });
}

/** The files page: the list (log.list_files) under the request's filters, with a notice or an error. */
async function filesPage(
  deps: ConsoleDeps,
  req: Request,
  res: Response,
  ctx: PageContext,
  extra: { notice?: string; error?: string; trigger?: Filters; status?: number } = {},
) {
  const filters = filtersOf(req.query, FILE_FILTERS);
  const files = await call(deps, res, ctx, 'log.list_files', toolInputOf(filters, NUMERIC));
  const { status, ...rest } = extra;
  sendPage(
    res,
    <RecallPage ctx={ctx} filters={filters} files={files} {...rest} />,
    status ?? pageStatusOf(files),
  );
}

/** GET /recall: the files, and the notice after a trigger redirected here. */
function filesRoute(deps: ConsoleDeps) {
  return async (req: Request, res: Response) => {
    const ctx = pageContext(deps, req, res);
    if (!recallOr(deps, res, ctx, 200)) return;
    const requested = text(req.query.requested);
    const notice = REQUEST_ID.test(requested)
      ? `Recall requested (request ${requested}). The device uploads its files the next time the app checks in; they appear here then.`
      : undefined;
    await filesPage(deps, req, res, ctx, { notice });
  };
}

/** POST /recall/trigger: ask recall to recall a device's (or an end-user's) files. */
function triggerRoute(deps: ConsoleDeps) {
  return async (req: Request, res: Response) => {
    const ctx = pageContext(deps, req, res);
    const recall = recallOr(deps, res, ctx, 404);
    if (!recall) return;
    const target = {
      device_id: text(req.body?.device_id).slice(0, MAX_FILTER) || undefined,
      user_id: text(req.body?.user_id).slice(0, MAX_FILTER) || undefined,
    };
    const again = (error: string) => filesPage(deps, req, res, ctx, { error, trigger: target, status: 400 });
    if (!target.device_id && !target.user_id) return again('Give a device id or an end-user id to recall.');
    let requested: { request_id: string };
    try {
      requested = await recall.trigger(sessionOf(res).token, ctx.projectId, target);
    } catch (err) {
      if (err instanceof UserInputError) return again('Recall refused this request: check the ids.');
      throw err;
    }
    deps.logger.info(
      {
        event: 'console_recall_triggered',
        request_id: requested.request_id,
        user_id: ctx.me.user_id,
        project_id: ctx.projectId,
      },
      'recall triggered',
    );
    res.redirect(303, href('/recall', ctx.projectId, { requested: requested.request_id }));
  };
}

/** GET /recall/files/:file_id: a file's entries (log.file_entries); 404 for no such file. */
function entriesRoute(deps: ConsoleDeps) {
  return async (req: Request<{ file_id: string }>, res: Response) => {
    const ctx = pageContext(deps, req, res);
    if (!recallOr(deps, res, ctx, 404)) return;
    const fileId = req.params.file_id;
    if (!FILE_ID.test(fileId)) throw new NotFoundError('No such file.');
    const filters = filtersOf(req.query, ENTRY_FILTERS);
    const entries = await call(deps, res, ctx, 'log.file_entries', {
      file_id: fileId,
      ...toolInputOf(filters, NUMERIC),
    });
    const missing = entries.ok && (entries.result as { found?: boolean }).found === false;
    sendPage(
      res,
      <RecallFilePage ctx={ctx} fileId={fileId} filters={filters} entries={entries} />,
      missing ? 404 : pageStatusOf(entries),
    );
  };
}

/** POST /recall/files/:file_id/download: the whole file as NDJSON, or why it cannot be offered. */
function downloadRoute(deps: ConsoleDeps) {
  return async (req: Request<{ file_id: string }>, res: Response) => {
    const ctx = pageContext(deps, req, res);
    const recall = recallOr(deps, res, ctx, 404);
    if (!recall) return;
    const fileId = req.params.file_id;
    if (!FILE_ID.test(fileId)) throw new NotFoundError('No such file.');
    let file: { body: string; filename: string };
    try {
      file = await recall.download(sessionOf(res).token, ctx.projectId, fileId);
    } catch (err) {
      if (!(err instanceof UserInputError)) throw err;
      const problem = err.details as FileProblem | undefined;
      return sendPage(
        res,
        <DownloadFailedPage
          ctx={ctx}
          fileId={fileId}
          message="This file cannot be read to its end, so it is not offered as a download."
          problem={problem && typeof problem === 'object' && 'stage' in problem ? problem : undefined}
        />,
        422,
      );
    }
    deps.logger.info(
      {
        event: 'console_recall_download',
        file_id: fileId,
        user_id: ctx.me.user_id,
        project_id: ctx.projectId,
      },
      'recall file downloaded',
    );
    res
      .status(200)
      .type('application/x-ndjson')
      .set({
        'content-disposition': `attachment; filename="${fileId}.ndjson"`,
        'cache-control': 'no-store',
      })
      .send(file.body);
  };
}

/** GET /recall/audit: recall's own trail (log.audit), with names for its ids when identity has them. */
function auditRoute(deps: ConsoleDeps) {
  return async (req: Request, res: Response) => {
    const ctx = pageContext(deps, req, res);
    if (!recallOr(deps, res, ctx, 404)) return;
    const filters = filtersOf(req.query, AUDIT_FILTERS);
    const trail = await call(deps, res, ctx, 'log.audit', toolInputOf(filters, NUMERIC));
    const names = trail.ok
      ? await namesOf(deps, res, trail.result as ListAnswer<RecallAuditItem>)
      : undefined;
    sendPage(
      res,
      <RecallAuditPage ctx={ctx} filters={filters} trail={trail} names={names} />,
      pageStatusOf(trail),
    );
  };
}

// Who the trail's ids are, in one lookup for the page. Names are a help to read it: when identity
// cannot say now, the page shows the ids rather than fail.
async function namesOf(
  deps: ConsoleDeps,
  res: Response,
  trail: ListAnswer<RecallAuditItem>,
): Promise<Names | undefined> {
  const userIds = [...new Set(trail.items.flatMap((r) => (r.user_id ? [r.user_id] : [])))];
  const tokenIds = [...new Set(trail.items.flatMap((r) => (r.token_id ? [r.token_id] : [])))];
  if (userIds.length === 0 && tokenIds.length === 0) return undefined;
  try {
    return await deps.identity.names(sessionOf(res).token, { userIds, tokenIds });
  } catch (err) {
    if (!(err instanceof BackendUnavailableError)) throw err;
    deps.logger.warn({ event: 'console_names_unavailable' }, 'recall audit trail shown with ids');
    return undefined;
  }
}
