import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { UNLIST_AFTER_FAILED_PROBES } from '@svc/backend-client';
import { type InProcessStack, startInProcessStack } from '../testing/in-process-stack';
import { CONDITION_CEILING_MS, STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { bearer, callRest, connectMcp, setOrgCapability } from './support';

// The recall group follows its service: a real recall process stopped and started again under a
// live MCP session. The gateway probes every PROBE_MS; the group goes at the first probe after the
// service stopped, the session is told, and a call that was in flight when the service died
// answers 503 instead of hanging.

const PROBE_MS = 300;
/** How long a notification may take to reach the client: a ceiling, the machine may be busy. */
const NOTIFY_MS = CONDITION_CEILING_MS;
const RECALL_TOOLS = ['log.audit', 'log.file_entries', 'log.list_files'];

let stack: InProcessStack;
let mcp: Client;
let changes = 0;
/** `changes` when recall was stopped. */
let changesBeforeStop = 0;

const listed = async () =>
  (await mcp.listTools()).tools
    .map((t) => t.name)
    .filter((n) => RECALL_TOOLS.includes(n))
    .sort();

async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  withinMs: number,
): Promise<number> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > withinMs) throw new Error(`${what} did not happen within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - t0;
}

beforeAll(async () => {
  stack = await startInProcessStack({ name: 'recall_lifecycle', recall: true, healthIntervalMs: PROBE_MS });
  await setOrgCapability(stack, 'vis_recall', true);
  mcp = await connectMcp(`${stack.urls.gateway}/mcp`, bearer(stack.token));
  mcp.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await mcp?.close();
  await stack?.close();
});

describe('recall group lifecycle', () => {
  it('is listed and callable while recall answers', async () => {
    expect(await listed()).toEqual(RECALL_TOOLS);
    const rest = await callRest(stack.urls.gateway, 'log.list_files', {}, bearer(stack.token));
    expect(rest.status).toBe(200);
  });

  it('answers a call in flight when recall dies with 503, not a hang', async () => {
    // Recall would answer after ten minutes, far beyond the gateway's own timeout for it.
    stack.recall!.delayMs = 10 * 60_000;
    const held = stack.recall!.held;
    const pending = callRest(stack.urls.gateway, 'log.audit', {}, bearer(stack.token));
    // Stopped once the call is in flight at recall (not after a guessed delay: on a loaded machine
    // the call may not have got there yet, and a refused connection would prove nothing).
    await until('the call reached recall', () => stack.recall!.held > held, NOTIFY_MS);
    changesBeforeStop = changes;
    await stack.recall!.stop();
    const answer = await pending;
    // Told by the closed connection: a 503 backend_unavailable, not the backend_timeout of its own
    // timeout running out (nor recall's answer). The gateway did not wait, however busy the machine.
    expect(answer.status).toBe(503);
    expect(answer.body.error).toBe('backend_unavailable');
    stack.recall!.delayMs = 0;
  });

  it('disappears after failed probes in a row once the service stopped; the session is told; REST 404', async () => {
    // Counted from the stop: the periodic probe may have seen it, and the session been told,
    // before this test began (a loaded machine runs the previous one's last steps late).
    const before = changesBeforeStop;
    // UNLIST_AFTER_FAILED_PROBES probes started after the stop are enough (the first call may join
    // a round already in flight, hence one more). Counted in probes, not milliseconds: on a loaded
    // machine a round can run late.
    const monitor = stack.gateway.healthMonitor;
    for (let i = 0; i <= UNLIST_AFTER_FAILED_PROBES; i++) await monitor.probeNow();
    expect(monitor.isAvailable('recall')).toBe(false);
    await until('list_changed', () => changes > before, NOTIFY_MS);
    expect(await listed()).toEqual([]);
    const rest = await callRest(stack.urls.gateway, 'log.list_files', {}, bearer(stack.token));
    expect(rest.status).toBe(404);
    const openapi = (await (await fetch(`${stack.urls.gateway}/openapi.json`)).json()) as { paths: object };
    expect(Object.keys(openapi.paths).filter((p) => p.includes('log.list_files'))).toEqual([]);
  });

  it('comes back when it starts again, and the session is told again', async () => {
    const before = changes;
    await stack.recall!.start();
    // The periodic probe finds it (no probeNow here).
    await until('list_changed', () => changes > before, NOTIFY_MS);
    expect(await listed()).toEqual(RECALL_TOOLS);
    const rest = await callRest(stack.urls.gateway, 'log.list_files', {}, bearer(stack.token));
    expect(rest.status).toBe(200);
  });
});
