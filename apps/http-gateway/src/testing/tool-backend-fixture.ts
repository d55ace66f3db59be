import express from 'express';
import { closeServer, listenLoopback, urlOf } from './identity-contract-fixture';

/** An answer, or a promise of one (a slow backend). */
export type ToolAnswer = (projectId: string, input: Record<string, unknown>) => unknown;

/**
 * CONTRACT FIXTURE of a tool backend (core, recall): POST
 * /internal/v1/projects/{project_id}/tools/{tool} and GET /healthz as docs/internal-api.md states
 * them, answering from functions the test provides over its own in-memory records.
 */
export interface ToolBackendFixture {
  url: string;
  healthy: boolean;
  calls: Array<{ projectId: string; tool: string; input: unknown }>;
  /** The `traceparent` of each call, in the order of `calls`. */
  traceparents: Array<string | undefined>;
  /** Batches posted to the internal ingest route (self-tracing), with the internal secret. */
  ingested: Array<{ projectId: string; body: { spans?: Record<string, unknown>[] } }>;
  close(): Promise<void>;
}

export async function startToolBackendFixture(
  secret: string,
  tools: Record<string, ToolAnswer>,
): Promise<ToolBackendFixture> {
  const fixture: ToolBackendFixture = {
    url: '',
    healthy: true,
    calls: [],
    traceparents: [],
    ingested: [],
    close: async () => {},
  };
  const app = express();
  app.use(express.json({ limit: '10mb' }));
  app.get('/healthz', (_req, res) => {
    res.status(fixture.healthy ? 200 : 503).json({ status: fixture.healthy ? 'ok' : 'down' });
  });
  app.post('/internal/v1/projects/:project/tools/:tool', async (req, res) => {
    if (req.get('x-internal-secret') !== secret) {
      res.status(401).json({ error: 'unauthorized', message: 'internal secret required' });
      return;
    }
    const { project, tool } = req.params;
    fixture.calls.push({ projectId: project, tool, input: req.body });
    fixture.traceparents.push(req.get('traceparent'));
    const answer = tools[tool];
    if (!answer) {
      res.status(404).json({ error: 'not_found', message: `no tool ${tool}` });
      return;
    }
    try {
      res.json(await answer(project, req.body ?? {}));
    } catch (err) {
      // A backend failing with internal detail in its body: the gateway must never echo it.
      res.status(500).json({ error: 'internal', message: (err as Error).message });
    }
  });
  app.post('/internal/v1/projects/:project/ingest', (req, res) => {
    if (req.get('x-internal-secret') !== secret) {
      res.status(401).json({ error: 'unauthorized', message: 'internal secret required' });
      return;
    }
    fixture.ingested.push({ projectId: req.params.project, body: req.body });
    res.json({ accepted: { spans: req.body?.spans?.length ?? 0 } });
  });
  const server = await listenLoopback(app);
  fixture.url = urlOf(server);
  fixture.close = () => closeServer(server);
  return fixture;
}
