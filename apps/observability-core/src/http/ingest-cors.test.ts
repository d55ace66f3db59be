import { createHttpIngestKeyResolver, signIngestBody } from '@svc/ingest-auth';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import request from 'supertest';
import { createCoreApp } from '../app';
import { type CoreHarness, createCoreHarness, INTERNAL_SECRET, type TestKey } from '../testing/core-harness';

// Browsers sending straight to the ingest routes (docs/ingest.md, "Browsers (CORS)"): the origin
// must be listed on the key the request names, and only the three ingest routes answer CORS.

const NOW = Date.now();
const APP = 'https://app.example.com';
const DEV = 'http://localhost:5173';
const EVIL = 'https://evil.example';

const web: TestKey = {
  keyId: 'cors_web',
  projectId: 'cors_web_p',
  secret: 'cors-web-secret-0123456789',
  active: true,
  allowedOrigins: [APP, DEV],
};
const other: TestKey = {
  keyId: 'cors_other',
  projectId: 'cors_other_p',
  secret: 'cors-other-secret-0123456789',
  active: true,
  allowedOrigins: [APP],
};
const serverOnly: TestKey = {
  keyId: 'cors_server',
  projectId: 'cors_server_p',
  secret: 'cors-server-secret-0123456789',
  active: true,
};
const inactive: TestKey = {
  keyId: 'cors_inactive',
  projectId: 'cors_inactive_p',
  secret: 'cors-inactive-secret-0123456',
  active: false,
  allowedOrigins: [APP],
};

const ROUTES = ['/ingest/v1/batch', '/v1/traces', '/v1/logs'];
const ALLOW_HEADERS =
  'content-type, x-svc-key, x-svc-timestamp, x-svc-signature, x-svc-ingest-key, idempotency-key, x-svc-sdk-export';

let h: CoreHarness;
beforeAll(async () => {
  h = await createCoreHarness('core_ingest_cors', NOW, [web, other, serverOnly, inactive]);
});
afterAll(async () => {
  await h.close();
});

const corsHeaders = (headers: Record<string, string>) =>
  Object.keys(headers).filter((name) => name.startsWith('access-control-'));

/** A batch of one log line whose message says which test wrote it. */
function batch(message: string): string {
  return JSON.stringify({
    logs: [{ timestamp: new Date(NOW - 60_000).toISOString(), level: 'INFO', message, source: 'device' }],
  });
}

/** A signed batch POST, as the web SDK sends it: svc_key in the URL, the headers of the key. */
function postBatch(key: TestKey, body: string, options: { origin?: string; svcKey?: string } = {}) {
  const ts = Math.floor(NOW / 1000);
  const query = options.svcKey === undefined ? '' : `?svc_key=${encodeURIComponent(options.svcKey)}`;
  const req = request(h.app)
    .post(`/ingest/v1/batch${query}`)
    .set({
      'Content-Type': 'application/json',
      'X-Svc-Key': key.keyId,
      'X-Svc-Timestamp': String(ts),
      'X-Svc-Signature': signIngestBody(key.secret, ts, body),
    });
  return (options.origin === undefined ? req : req.set('Origin', options.origin)).send(body);
}

function otlpLogs(message: string): string {
  return JSON.stringify({
    resourceLogs: [
      {
        scopeLogs: [
          {
            logRecords: [
              {
                timeUnixNano: `${BigInt(NOW - 60_000) * 1_000_000n}`,
                severityNumber: 9,
                body: { stringValue: message },
              },
            ],
          },
        ],
      },
    ],
  });
}

function postOtlpLogs(key: TestKey, body: string, options: { origin?: string; svcKey?: string } = {}) {
  const query = options.svcKey === undefined ? '' : `?svc_key=${encodeURIComponent(options.svcKey)}`;
  const req = request(h.app)
    .post(`/v1/logs${query}`)
    .set({ 'Content-Type': 'application/json', 'X-Svc-Ingest-Key': `${key.keyId}:${key.secret}` });
  return (options.origin === undefined ? req : req.set('Origin', options.origin)).send(body);
}

async function logsWith(message: string): Promise<number> {
  const [row] = await h.ch.query<{ n: string }>('SELECT count() AS n FROM logs WHERE message = {m:String}', {
    m: message,
  });
  return Number(row?.n ?? 0);
}

function preflight(path: string, origin: string | undefined) {
  const req = request(h.app)
    .options(path)
    .set('Access-Control-Request-Method', 'POST')
    .set('Access-Control-Request-Headers', 'content-type,x-svc-key,x-svc-timestamp,x-svc-signature');
  return origin === undefined ? req : req.set('Origin', origin);
}

describe('CORS preflight of the ingest routes', () => {
  it.each(ROUTES)('%s: 204 with the CORS headers for an origin the key allows', async (path) => {
    for (const origin of [APP, DEV]) {
      const res = await preflight(`${path}?svc_key=${web.keyId}`, origin);
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-allow-methods']).toBe('POST');
      expect(res.headers['access-control-allow-headers']).toBe(ALLOW_HEADERS);
      expect(res.headers['access-control-max-age']).toBe('600');
      expect(res.headers.vary).toBe('Origin');
      expect(res.text).toBe('');
    }
  });

  it.each([
    ['an origin the key does not list', `?svc_key=${web.keyId}`, EVIL],
    ['an origin of another port', `?svc_key=${web.keyId}`, 'http://localhost:5174'],
    ['an origin with a trailing slash', `?svc_key=${web.keyId}`, `${APP}/`],
    ['the opaque origin', `?svc_key=${web.keyId}`, 'null'],
    ['a key without origins', `?svc_key=${serverOnly.keyId}`, APP],
    ['an unknown key', '?svc_key=cors_nope', APP],
    ['an inactive key', `?svc_key=${inactive.keyId}`, APP],
    ['no svc_key', '', APP],
    ['an empty svc_key', '?svc_key=', APP],
    ['two different svc_key', `?svc_key=${web.keyId}&svc_key=${other.keyId}`, APP],
  ])('refuses %s with 403 forbidden_origin and no CORS headers', async (_what, query, origin) => {
    for (const path of ROUTES) {
      const res = await preflight(`${path}${query}`, origin);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: 'forbidden_origin',
        message: 'This origin may not send with this ingest key.',
      });
      expect(corsHeaders(res.headers)).toEqual([]);
    }
  });

  it("leaves an OPTIONS without Origin as it was: express's Allow answer, no CORS headers", async () => {
    for (const path of ROUTES) {
      const res = await preflight(`${path}?svc_key=${web.keyId}`, undefined);
      expect(res.status).toBe(200);
      expect(res.headers.allow).toBe('POST');
      expect(corsHeaders(res.headers)).toEqual([]);
    }
  });
});

describe('POST from a browser', () => {
  it('writes a batch from an allowed origin and lets the page read the answer', async () => {
    const res = await postBatch(web, batch('cors allowed'), { origin: APP, svcKey: web.keyId });
    expect(res.status).toBe(200);
    expect(res.body.accepted.logs).toBe(1);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers['access-control-expose-headers']).toBe('Date, Retry-After');
    expect(res.headers.vary).toBe('Origin');
    expect(await logsWith('cors allowed')).toBe(1);

    // Without svc_key the key of the headers is the one checked.
    const viaHeader = await postBatch(web, batch('cors via header'), { origin: DEV });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.headers['access-control-allow-origin']).toBe(DEV);
    expect(await logsWith('cors via header')).toBe(1);
  });

  it('writes OTLP logs from an allowed origin', async () => {
    const res = await postOtlpLogs(web, otlpLogs('cors otlp allowed'), { origin: APP, svcKey: web.keyId });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers['access-control-expose-headers']).toBe('Date, Retry-After');
    expect(await logsWith('cors otlp allowed')).toBe(1);
  });

  it('refuses a disallowed origin with 403 before anything is written', async () => {
    const cases = [
      postBatch(web, batch('cors evil'), { origin: EVIL, svcKey: web.keyId }),
      postBatch(web, batch('cors evil'), { origin: EVIL }),
      postBatch(serverOnly, batch('cors evil'), { origin: APP, svcKey: serverOnly.keyId }),
      postBatch(inactive, batch('cors evil'), { origin: APP, svcKey: inactive.keyId }),
      postOtlpLogs(web, otlpLogs('cors evil'), { origin: EVIL, svcKey: web.keyId }),
      postOtlpLogs(serverOnly, otlpLogs('cors evil'), { origin: APP }),
    ];
    for (const res of await Promise.all(cases)) {
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('forbidden_origin');
      expect(corsHeaders(res.headers)).toEqual([]);
    }
    expect(await logsWith('cors evil')).toBe(0);
  });

  it('refuses a svc_key that names another key than the one that signs', async () => {
    // Both keys allow APP: the origin was checked for one key, the request is signed by another.
    const signedByOther = await postBatch(other, batch('cors mismatch'), { origin: APP, svcKey: web.keyId });
    expect(signedByOther.status).toBe(403);
    expect(signedByOther.body.error).toBe('forbidden_origin');
    expect(corsHeaders(signedByOther.headers)).toEqual([]);
    const otlp = await postOtlpLogs(other, otlpLogs('cors mismatch'), { origin: APP, svcKey: web.keyId });
    expect(otlp.status).toBe(403);
    expect(await logsWith('cors mismatch')).toBe(0);
  });

  it('lets an allowed origin read error answers: a 401 exposes Date for the clock, a 400 its reason', async () => {
    const ts = Math.floor(NOW / 1000) - 3600;
    const body = batch('cors skewed');
    const skewed = await request(h.app)
      .post(`/ingest/v1/batch?svc_key=${web.keyId}`)
      .set({
        Origin: APP,
        'Content-Type': 'application/json',
        'X-Svc-Key': web.keyId,
        'X-Svc-Timestamp': String(ts),
        'X-Svc-Signature': signIngestBody(web.secret, ts, body),
      })
      .send(body);
    expect(skewed.status).toBe(401);
    expect(skewed.body.error).toBe('unauthorized');
    expect(skewed.headers['access-control-allow-origin']).toBe(APP);
    expect(skewed.headers['access-control-expose-headers']).toBe('Date, Retry-After');
    expect(skewed.headers.vary).toBe('Origin');
    expect(Number.isNaN(Date.parse(skewed.headers.date ?? ''))).toBe(false);

    const wrongSecret = await postOtlpLogs({ ...web, secret: 'not-the-secret' }, otlpLogs('cors 401'), {
      origin: APP,
      svcKey: web.keyId,
    });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.headers['access-control-allow-origin']).toBe(APP);

    const invalid = await postBatch(web, '{"logs": [{}]}', { origin: APP, svcKey: web.keyId });
    expect(invalid.status).toBe(400);
    expect(invalid.headers['access-control-allow-origin']).toBe(APP);
    expect(await logsWith('cors skewed')).toBe(0);
  });

  it('leaves requests without Origin as they were, svc_key or not', async () => {
    const plain = await postBatch(serverOnly, batch('cors server'));
    expect(plain.status).toBe(200);
    expect(corsHeaders(plain.headers)).toEqual([]);
    expect(plain.headers.vary).toBeUndefined();
    // svc_key means nothing without an Origin, even naming another key.
    const named = await postBatch(serverOnly, batch('cors server named'), { svcKey: web.keyId });
    expect(named.status).toBe(200);
    expect(corsHeaders(named.headers)).toEqual([]);
    const otlp = await postOtlpLogs(serverOnly, otlpLogs('cors server otlp'));
    expect(otlp.status).toBe(200);
    expect(corsHeaders(otlp.headers)).toEqual([]);
    const unsigned = await request(h.app).post('/ingest/v1/batch').send('{}');
    expect(unsigned.status).toBe(401);
    expect(corsHeaders(unsigned.headers)).toEqual([]);
    expect(await logsWith('cors server')).toBe(1);
    expect(await logsWith('cors server named')).toBe(1);
    expect(await logsWith('cors server otlp')).toBe(1);
  });
});

describe('routes without CORS', () => {
  it('answers no CORS headers on any other route of the core, with or without svc_key', async () => {
    const answers = await Promise.all([
      request(h.app).get('/healthz').set('Origin', APP),
      request(h.app).options(`/healthz?svc_key=${web.keyId}`).set('Origin', APP),
      request(h.app)
        .options(`/ingest/v1/debug-files?svc_key=${web.keyId}`)
        .set('Origin', APP)
        .set('Access-Control-Request-Method', 'POST'),
      request(h.app).post(`/ingest/v1/debug-files?svc_key=${web.keyId}`).set('Origin', APP).send('x'),
      request(h.app)
        .options(`/internal/v1/projects/${web.projectId}/tools/log.search?svc_key=${web.keyId}`)
        .set('Origin', APP),
      h.callTool(web.projectId, 'log.search', {}).set('Origin', APP),
    ]);
    for (const res of answers) expect(corsHeaders(res.headers)).toEqual([]);
  });
});

describe('identity unreachable', () => {
  it('answers 503, never a pass, and writes nothing', async () => {
    const app = createCoreApp({
      ch: h.ch,
      ingestKeys: createHttpIngestKeyResolver({
        identityUrl: 'http://127.0.0.1:1',
        internalSecret: INTERNAL_SECRET,
        timeoutMs: 1000,
      }),
      internalSecret: INTERNAL_SECRET,
      logger: silentLogger,
      metrics: createNoopMetrics(),
      now: () => NOW,
    });
    const pre = await request(app)
      .options(`/ingest/v1/batch?svc_key=${web.keyId}`)
      .set('Origin', APP)
      .set('Access-Control-Request-Method', 'POST');
    expect(pre.status).toBe(503);
    expect(pre.body.error).toBe('backend_unavailable');
    expect(corsHeaders(pre.headers)).toEqual([]);

    const body = batch('cors identity down');
    const ts = Math.floor(NOW / 1000);
    const post = await request(app)
      .post(`/ingest/v1/batch?svc_key=${web.keyId}`)
      .set({
        Origin: APP,
        'Content-Type': 'application/json',
        'X-Svc-Key': web.keyId,
        'X-Svc-Timestamp': String(ts),
        'X-Svc-Signature': signIngestBody(web.secret, ts, body),
      })
      .send(body);
    expect(post.status).toBe(503);
    expect(corsHeaders(post.headers)).toEqual([]);
    expect(await logsWith('cors identity down')).toBe(0);
  });
});
