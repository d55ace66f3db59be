/** @jsxRuntime automatic @jsxImportSource preact */
import { performance } from 'node:perf_hooks';
import { NotFoundError } from '@svc/errors';
import express, { type Router } from 'express';
import type { ConsoleDeps } from '../console-deps';
import { byGroup, type CatalogTool, catalogTools, findTool } from '../gateway-catalog';
import { pageContext } from '../page-context';
import { sendPage } from '../pages/layout';
import { ToolPage, ToolsIndexPage } from '../pages/tools';
import { type FormField, type FormValues, formModel, formValuesOf, toolInput } from '../schema-form';
import { sessionOf } from '../session';
import { answerOf, pageStatusOf } from '../tool-answers';

/** What a tool name looks like (`log.search`); anything else is no tool, without asking the gateway. */
const TOOL_NAME = /^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+$/;
const MAX_TOOL_NAME = 200;

const pretty = (value: unknown) => JSON.stringify(value, null, 2);
const textOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value.at(-1) : value) ?? '';

/** The raw JSON editor's text as a tool input: a JSON object, or why not. */
export function parseJsonInput(text: string): { input: Record<string, unknown> } | { error: string } {
  if (text.trim() === '') return { input: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { error: `This is not valid JSON (${(err as Error).message}).` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { error: 'The input is a JSON object: {"name": value, ...}.' };
  }
  return { input: parsed as Record<string, unknown> };
}

/** The tool runner (`/tools`): the gateway's published tools, a generated form each, runs. */
export function toolRoutes(deps: ConsoleDeps): Router {
  const router = express.Router();

  router.get('/tools', async (req, res) => {
    const ctx = pageContext(deps, req, res);
    const doc = await deps.tools.catalog();
    sendPage(res, <ToolsIndexPage ctx={ctx} groups={byGroup(catalogTools(doc))} />);
  });

  /** The tool and its form; a tool the gateway does not publish now gets the raw JSON editor only. */
  async function toolOf(
    name: string,
  ): Promise<{ tool: CatalogTool; fields: FormField[]; published: boolean }> {
    if (name.length > MAX_TOOL_NAME || !TOOL_NAME.test(name)) throw new NotFoundError('No such tool.');
    const doc = await deps.tools.catalog();
    const tool = findTool(doc, name);
    if (tool) return { tool, fields: formModel(tool.inputSchema, doc), published: true };
    const unknown = { name, summary: '', description: '', group: '', capability: undefined, inputSchema: {} };
    return { tool: unknown, fields: [], published: false };
  }

  // `?input=<JSON object>` fills the form and the JSON editor (a call linked from the overview or
  // the assistant), without running it: a GET never calls a tool.
  router.get('/tools/:name', async (req, res) => {
    const ctx = pageContext(deps, req, res);
    const { tool, fields, published } = await toolOf(req.params.name);
    const asked = typeof req.query.input === 'string' ? parseJsonInput(req.query.input) : undefined;
    const input = asked && 'input' in asked ? asked.input : undefined;
    sendPage(
      res,
      <ToolPage
        ctx={ctx}
        tool={tool}
        fields={fields}
        json={input ? pretty(input) : '{}'}
        {...(input ? { values: formValuesOf(fields, input) } : {})}
        unpublished={!published}
      />,
      published ? 200 : 404,
    );
  });

  router.post('/tools/:name', async (req, res) => {
    const ctx = pageContext(deps, req, res);
    const { tool, fields, published } = await toolOf(req.params.name);
    const body = (req.body ?? {}) as FormValues;
    const page = { ctx, tool, fields, unpublished: !published };

    let input: Record<string, unknown>;
    let values: FormValues;
    if (textOf(body.mode) === 'json') {
      const json = textOf(body.input_json);
      const parsed = parseJsonInput(json);
      if ('error' in parsed)
        return sendPage(res, <ToolPage {...page} json={json} jsonError={parsed.error} />, 400);
      input = parsed.input;
      values = formValuesOf(fields, input);
    } else {
      const converted = toolInput(fields, body);
      if (converted.errors.length > 0) {
        const json = pretty(converted.input);
        return sendPage(res, <ToolPage {...page} values={body} errors={converted.errors} json={json} />, 400);
      }
      input = converted.input;
      values = body;
    }

    // The gateway checks, runs and audits the call; its answer (result or error, with its status) is the page's.
    const started = performance.now();
    const session = sessionOf(res).token;
    const answer = await answerOf(deps.tools, { session, projectId: ctx.projectId, tool: tool.name, input });
    const run = { input, answer, elapsedMs: Math.round(performance.now() - started) };
    sendPage(
      res,
      <ToolPage {...page} values={values} json={pretty(input)} run={run} />,
      pageStatusOf(answer),
    );
  });

  // A tool call a drawn view makes through its host (MCP Apps' tools/call, e.g. memory-growth asking
  // apm.search for a session's samples): the page's host script posts it here with the session's
  // CSRF token, and it goes through the gateway like every console call, as the person, audited.
  router.post('/tools/:name/call', async (req, res) => {
    const ctx = pageContext(deps, req, res);
    const name = req.params.name;
    if (name.length > MAX_TOOL_NAME || !TOOL_NAME.test(name)) throw new NotFoundError('No such tool.');
    const parsed = parseJsonInput(textOf(req.body?.arguments));
    res.set('cache-control', 'no-store');
    if ('error' in parsed)
      return void res
        .status(400)
        .json({ ok: false, status: 400, error: { error: 'invalid_input', message: parsed.error } });
    const session = sessionOf(res).token;
    res.json(
      await answerOf(deps.tools, { session, projectId: ctx.projectId, tool: name, input: parsed.input }),
    );
  });

  return router;
}
