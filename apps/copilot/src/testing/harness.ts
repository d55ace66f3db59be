import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClickHouse } from '@svc/clickhouse';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { startLoopbackCore } from '@svc/observability-core/testing';
import type { CallActor } from '@svc/tool-kit';
import { loadCopilotConfig } from '../config';
import { wireCopilot } from '../wiring';

// A real core on a fresh chDB database and two real copilot services on loopback ports, one with
// the optional LLM and one without. The LLM is the one thing stubbed: a local HTTP server that
// answers chat completions as each test tells it to.

export const SECRET = 'copilot-test-internal-secret-0123';
export const PROJECT = 'prj_copilot_test';
const KEY = { keyId: 'key_copilot_test', secret: 'copilot-test-ingest-secret-012345' };

export const ALL_ACCESS: CallActor = {
  token_id: 'tok_test',
  user_id: 'usr_test',
  transport: 'rest',
  capabilities: ['vis_trace', 'vis_recall', 'vis_ai_verifier'],
};

export interface LlmRequest {
  authorization: string | undefined;
  body: { model: string; temperature: number; messages: { role: string; content: string }[] };
}

export interface LlmStub {
  url: string;
  requests: LlmRequest[];
  /** How the next requests are answered: a status and a body, or `hang` to never answer. */
  answer: { status: number; body: unknown } | 'hang';
  /** The answer of an API that restates as `text`. */
  says(text: string): void;
}

export interface CopilotHarness {
  ch: ClickHouse;
  coreUrl: string;
  /** copilot without an LLM, and with the stub LLM. */
  plain: string;
  withLlm: string;
  llm: LlmStub;
  nowMs: number;
  ingest(body: Record<string, unknown[]>): Promise<void>;
  tool(
    base: string,
    name: string,
    input: unknown,
    options?: { actor?: CallActor | null; secret?: string; project?: string },
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

export async function startCopilotHarness(name: string): Promise<CopilotHarness> {
  const nowMs = Date.now();
  const core = await startLoopbackCore({
    name,
    key: { ...KEY, projectId: PROJECT },
    internalSecret: SECRET,
    now: () => nowMs,
  });

  const llm: LlmStub = {
    url: '',
    requests: [],
    answer: { status: 200, body: { choices: [{ message: { content: 'NONE' } }] } },
    says(text) {
      this.answer = { status: 200, body: { choices: [{ message: { role: 'assistant', content: text } }] } };
    },
  };
  const llmServer = await listen(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as LlmRequest['body'];
    llm.requests.push({ authorization: req.headers.authorization, body });
    const answer = llm.answer;
    if (answer === 'hang') return;
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  });
  llm.url = `${llmServer.url}/v1`;

  const env = {
    SVC_INTERNAL_SECRET: SECRET,
    SVC_OBSERVABILITY_ENDPOINT: core.url,
    SVC_LOG_LEVEL: 'silent',
  };
  const deps = { logger: silentLogger, metrics: createNoopMetrics() };
  const plainCopilot = wireCopilot(loadCopilotConfig(env), deps);
  const llmCopilot = wireCopilot(
    loadCopilotConfig({
      ...env,
      SVC_COPILOT_LLM_URL: llm.url,
      SVC_COPILOT_LLM_API_KEY: 'sk-test-key',
      SVC_COPILOT_LLM_MODEL: 'test-model',
      // The "never answers" case waits this out; every other answer must come well within it, also
      // on a loaded machine (load 15 on 2 cores slows a loopback answer to seconds).
      SVC_COPILOT_LLM_TIMEOUT_MS: '5000',
    }),
    deps,
  );
  const plain = await listen(plainCopilot.app);
  const withLlm = await listen(llmCopilot.app);
  const servers = [llmServer.server, plain.server, withLlm.server];

  return {
    ch: core.ch,
    coreUrl: core.url,
    plain: plain.url,
    withLlm: withLlm.url,
    llm,
    nowMs,
    ingest: (records) => core.ingest(records),
    async tool(base, tool, input, options = {}) {
      const actor = options.actor === undefined ? ALL_ACCESS : options.actor;
      const res = await fetch(`${base}/internal/v1/projects/${options.project ?? PROJECT}/tools/${tool}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-internal-secret': options.secret ?? SECRET,
          ...(actor ? { 'x-svc-actor': JSON.stringify(actor) } : {}),
        },
        body: JSON.stringify(input),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    async close() {
      llm.answer = { status: 503, body: {} };
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
      await plainCopilot.close();
      await llmCopilot.close();
      await core.close();
    },
  };
}
