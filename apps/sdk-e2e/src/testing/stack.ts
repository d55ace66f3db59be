import { type SpawnedStack, spawnStack } from '@svc/standalone/testing';

// The whole stack as `pnpm start` runs it (its own process: core, identity, recall, gateway), with a
// project of its own for the test: an ingest key, a read token, and a console session of the demo
// person (recalls are triggered from the console).

/** fetch as it was before any SDK instrumented it: the test's own calls are no app's requests. */
const plainFetch = globalThis.fetch;

export interface TestStack {
  stack: SpawnedStack;
  projectId: string;
  key: { key_id: string; secret: string };
  /** The ingest key's DSN, pointing at the core. */
  dsn: string;
  /** A tool call over the gateway's REST API with the project's read token; non-200 throws. */
  tool<T>(name: string, input: unknown): Promise<T>;
  /** A recall request for a device, as a person triggers it in the console. */
  recall(deviceId: string): Promise<string>;
  close(): Promise<void>;
}

async function call<T>(url: string, init: RequestInit): Promise<T> {
  const res = await plainFetch(url, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

export async function startTestStack(): Promise<TestStack> {
  // The smallest demo: the test's project is its own, the demo only has to be there.
  const stack = await spawnStack({ env: { SVC_DEMO_SIZE: '0.05' } });
  const { urls } = stack.ready;
  const admin = <T>(path: string, body: unknown) =>
    call<T>(`${urls.identity}/internal/v1/admin${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-internal-secret': stack.internalSecret },
      body: JSON.stringify(body),
    });
  const { project_id } = await admin<{ project_id: string }>('/projects', { name: 'mobile app' });
  const { token } = await admin<{ token: string }>('/tokens', { project_id });
  const key = await admin<{ key_id: string; secret: string }>('/ingest-keys', { project_id });
  const login = stack.ready.console_login!;
  const { session_token } = await call<{ session_token: string }>(`${urls.identity}/console/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(login),
  });
  const core = new URL(urls.core);
  return {
    stack,
    projectId: project_id,
    key,
    dsn: `${core.protocol}//${key.key_id}:${key.secret}@${core.host}/${project_id}`,
    tool: (name, input) =>
      call(`${urls.gateway}/v1/tools/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(input),
      }),
    async recall(deviceId) {
      const { request_id } = await call<{ request_id: string }>(
        `${urls.recall}/console/v1/projects/${project_id}/recalls`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${session_token}` },
          body: JSON.stringify({ device_id: deviceId }),
        },
      );
      return request_id;
    },
    close: () => stack.dispose(),
  };
}
