import { signIngestBody } from '@svc/observability-core';
import { type InProcessStack, startInProcessStack } from '../testing/in-process-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';

// A web page's origin, from identity to the core: the origins an operator gives a key are the ones
// the core answers CORS for; identity down is a 503 for a key the core has not seen yet.

const APP = 'https://shop.example.com';

let stack: InProcessStack;

beforeAll(async () => {
  stack = await startInProcessStack({ name: 'browser_cors' });
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.close();
});

interface Key {
  key_id: string;
  secret: string;
  allowed_origins: string[];
}

const createKey = async (allowedOrigins?: string[]) =>
  (await stack.admin('/internal/v1/admin/ingest-keys', {
    project_id: stack.projectId,
    ...(allowedOrigins ? { allowed_origins: allowedOrigins } : {}),
  })) as unknown as Key;

const preflight = (key: Key, origin = APP) =>
  fetch(`${stack.urls.core}/ingest/v1/batch?svc_key=${key.key_id}`, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type,x-svc-key,x-svc-timestamp,x-svc-signature',
    },
  });

function post(key: Key, message: string) {
  const body = JSON.stringify({
    logs: [{ timestamp: new Date().toISOString(), level: 'INFO', message, source: 'device' }],
  });
  const ts = Math.floor(Date.now() / 1000);
  return fetch(`${stack.urls.core}/ingest/v1/batch?svc_key=${key.key_id}`, {
    method: 'POST',
    headers: {
      Origin: APP,
      'Content-Type': 'application/json',
      'X-Svc-Key': key.key_id,
      'X-Svc-Timestamp': String(ts),
      'X-Svc-Signature': signIngestBody(key.secret, ts, body),
    },
    body,
  });
}

describe('browser origins of an ingest key', () => {
  it('lets a page of a listed origin send with the key, and no other page', async () => {
    const key = await createKey([APP]);
    expect(key.allowed_origins).toEqual([APP]);
    const pre = await preflight(key);
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(APP);
    const sent = await post(key, 'browser cors e2e');
    expect(sent.status).toBe(200);
    expect(sent.headers.get('access-control-allow-origin')).toBe(APP);
    expect(await sent.json()).toMatchObject({ accepted: { logs: 1 } });

    const elsewhere = await preflight(key, 'https://elsewhere.example');
    expect(elsewhere.status).toBe(403);
    expect(await elsewhere.json()).toMatchObject({ error: 'forbidden_origin' });

    const serverKey = await createKey();
    expect(serverKey.allowed_origins).toEqual([]);
    expect((await preflight(serverKey)).status).toBe(403);
    expect((await post(serverKey, 'browser cors e2e refused')).status).toBe(403);
  });

  it('answers 503 while identity is down for a key the core has not seen yet', async () => {
    const key = await createKey([APP]);
    await stack.stopIdentity();
    try {
      const pre = await preflight(key);
      expect(pre.status).toBe(503);
      expect(pre.headers.get('access-control-allow-origin')).toBeNull();
      expect((await post(key, 'browser cors e2e down')).status).toBe(503);
    } finally {
      await stack.startIdentity();
    }
    expect((await preflight(key)).status).toBe(204);
  });
});
