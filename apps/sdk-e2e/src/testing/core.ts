import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClickHouse } from '@svc/clickhouse';
import { startLoopbackCore } from '@svc/observability-core/testing';
import type { TraceSpanNode } from '@svc/tools-trace';

// A real core on a fresh chDB database, on a loopback port, with one ingest key; and a proxy in
// front of it that can fail the next requests the way an overloaded core does.

export const SECRET = 'sdk-node-test-internal-secret-01';
export const PROJECT = 'prj_sdk_node';
export const KEY = { keyId: 'key_sdk_node', secret: 'sdk-node-test-ingest-secret-0123' };

export interface TestCore {
  ch: ClickHouse;
  url: string;
  /** The DSN of the test key, pointing at `url` (or another base, e.g. the proxy). */
  dsn(base?: string): string;
  tool<T>(name: string, input: unknown): Promise<T>;
  /** A proxy that answers the next `failures` requests with `status` itself, then forwards. */
  proxy: { url: string; fail(status: number, failures: number): void; requests(): number };
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function startTestCore(name: string): Promise<TestCore> {
  const core = await startLoopbackCore({ name, key: { ...KEY, projectId: PROJECT }, internalSecret: SECRET });
  const { url } = core;

  let failing = { status: 503, left: 0 };
  let seen = 0;
  const proxyServer = createServer((req, res) => {
    seen++;
    if (failing.left > 0) {
      failing.left--;
      req.resume();
      res.writeHead(failing.status, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end('{"error":"backend_unavailable","message":"try again"}');
      return;
    }
    const up = request(`${url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(up);
  });
  const proxyUrl = await listen(proxyServer);

  return {
    ch: core.ch,
    url,
    dsn: (base = url) => {
      const u = new URL(base);
      return `${u.protocol}//${KEY.keyId}:${KEY.secret}@${u.host}/${PROJECT}`;
    },
    tool: (tool, input) => core.tool(tool, input),
    proxy: {
      url: proxyUrl,
      fail: (status, failures) => {
        failing = { status, left: failures };
      },
      requests: () => seen,
    },
    async close() {
      proxyServer.closeAllConnections();
      await new Promise((r) => proxyServer.close(r));
      await core.close();
    },
  };
}

/** A span of trace.get's answer (its output schema, @svc/tools-trace). */
export type TraceNode = TraceSpanNode;
