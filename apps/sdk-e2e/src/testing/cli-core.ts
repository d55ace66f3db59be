import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type LoopbackCore, startLoopbackCore } from '@svc/observability-core/testing';

// A real core on a fresh chDB database (loopback port, one ingest key), a proxy in front of it
// that sees every request and can misbehave on the next ones, for svc-cli run in-process
// (`cli` from @svc/cli/testing).

export const PROJECT = 'prj_cli';
export const KEY = { keyId: 'key_cli', secret: 'cli-test-ingest-secret-0123456789' };
const INTERNAL_SECRET = 'cli-test-internal-secret-0123456';

/** What the proxy does to the next request. */
export type Misbehaviour =
  /** Forward it, let the core store the file, then cut the connection: the answer is lost. */
  | { kind: 'lose-answer' }
  /** Cut the connection at once: the core never sees it. */
  | { kind: 'cut' }
  /** Answer it with this status, body and headers; the core never sees it. */
  | { kind: 'answer'; status: number; body: string; headers?: Record<string, string> };

export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** X-Svc-Timestamp as sent. */
  timestamp: string | undefined;
}

export interface CliTestCore {
  core: LoopbackCore;
  /** Every request the proxy received, in order. */
  seen: SeenRequest[];
  /** Queue what the proxy does to the next requests (then it forwards again). */
  misbehave(...next: Misbehaviour[]): void;
  /** The test key's DSN through the proxy (or another secret). */
  dsn(secret?: string): string;
  close(): Promise<void>;
}

export async function startCliTestCore(name: string): Promise<CliTestCore> {
  const core = await startLoopbackCore({
    name,
    key: { ...KEY, projectId: PROJECT },
    internalSecret: INTERNAL_SECRET,
  });
  const seen: SeenRequest[] = [];
  const queue: Misbehaviour[] = [];
  const proxy: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const timestamp = req.headers['x-svc-timestamp'] as string | undefined;
    seen.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, timestamp });
    const next = queue.shift();
    if (next?.kind === 'cut') {
      req.socket.destroy();
      return;
    }
    if (next?.kind === 'answer') {
      req.resume();
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(next.body);
      return;
    }
    const up = request(`${core.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      if (next?.kind === 'lose-answer') {
        answer.resume();
        answer.on('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxyUrl = new URL(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
  return {
    core,
    seen,
    misbehave: (...next) => queue.push(...next),
    dsn: (secret = KEY.secret) => `http://${KEY.keyId}:${secret}@${proxyUrl.host}/${PROJECT}`,
    async close() {
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
      await core.close();
    },
  };
}
