import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type GatewayProcess, spawnGateway } from '../testing/gateway-process';
import { type InProcessStack, startInProcessStack } from '../testing/in-process-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { bearer, connectMcp, connectModernMcp } from './support';

// Two gateway processes behind a plain round-robin load balancer on loopback (no session
// affinity: each request goes to the next gateway). A 2026-07-28 client keeps working, its calls
// served by both gateways in turn, because no request depends on state another one left. A 2025
// client needs affinity: its session lives in one gateway, which is why it is refused (404 for
// its session) on the other; the test shows the difference an operator has to know.

interface RoundRobin {
  url: string;
  /** The upstream index each proxied request went to, with its Mcp-Method header. */
  served: { upstream: number; method: string | undefined }[];
  close(): Promise<void>;
}

async function startRoundRobin(upstreams: string[]): Promise<RoundRobin> {
  const served: RoundRobin['served'] = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    const upstream = next++ % upstreams.length;
    served.push({ upstream, method: req.headers['mcp-method'] as string | undefined });
    const target = new URL(req.url ?? '/', upstreams[upstream]);
    const forwarded = request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    res.on('close', () => forwarded.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let stack: InProcessStack;
let gateways: GatewayProcess[];
let balancer: RoundRobin;

beforeAll(async () => {
  stack = await startInProcessStack({ name: 'round-robin' });
  await stack.ingest({
    logs: Array.from({ length: 6 }, (_, i) => ({
      timestamp: Date.now() - 1000 * (i + 1),
      level: i % 2 ? 'INFO' : 'ERROR',
      message: `round robin line ${i}`,
      source: 'backend',
    })),
  });
  const env = {
    SVC_INTERNAL_SECRET: stack.secret,
    SVC_IDENTITY_INTERNAL_URL: stack.urls.identity,
    SVC_OBSERVABILITY_ENDPOINT: stack.urls.core,
  };
  gateways = await Promise.all([spawnGateway(env), spawnGateway(env)]);
  balancer = await startRoundRobin(gateways.map((g) => g.url));
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await balancer?.close();
  await Promise.all((gateways ?? []).map((g) => g.stop()));
  await stack?.close();
});

it('serves a modern client through a round-robin balancer, its calls answered by both gateways in turn', async () => {
  const client = await connectModernMcp(`${balancer.url}/mcp`, bearer(stack.token), 'round-robin');
  try {
    const first = balancer.served.length;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('log.recent');
    const answers = [];
    for (let i = 0; i < 6; i++) {
      const result = await client.callTool({ name: 'log.recent', arguments: { limit: 6 } });
      expect(result.isError).toBeFalsy();
      answers.push(
        (result.structuredContent as { items: { message: string }[] }).items.map((x) => x.message),
      );
    }
    const expected = Array.from({ length: 6 }, (_, i) => `round robin line ${i}`);
    for (const messages of answers) expect(messages).toEqual(expected);
    const calls = balancer.served.slice(first).filter((s) => s.method === 'tools/call');
    expect(calls).toHaveLength(6);
    // Alternately: consecutive calls never went to the same gateway.
    for (let i = 1; i < calls.length; i++) expect(calls[i]!.upstream).not.toBe(calls[i - 1]!.upstream);
    expect(new Set(calls.map((c) => c.upstream))).toEqual(new Set([0, 1]));
  } finally {
    await client.close();
  }
});

it('a legacy client needs session affinity: the other gateway does not know its session', async () => {
  // Opened on one gateway, its next request lands on the other: 404 for an unknown session, which
  // the SDK client reports as an error. Operators keep sticky routing (Mcp-Session-Id) for 2025 clients.
  await expect(
    (async () => {
      const client = await connectMcp(`${balancer.url}/mcp`, bearer(stack.token), 'round-robin-legacy');
      try {
        for (let i = 0; i < 4; i++) await client.callTool({ name: 'log.recent', arguments: { limit: 1 } });
      } finally {
        await client.close().catch(() => {});
      }
    })(),
  ).rejects.toThrow(/404|Session not found/);
});
