import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { createGzip, gzipSync } from 'node:zlib';
import { signIngestBody } from '@svc/observability-core';
import {
  nestedKvlistAttribute,
  protoSpan,
  traceRequestBody,
} from '@svc/observability-core/testing/protobuf-writer';
import { signedDeviceHeaders } from '@svc/recall';

// The worst inputs a hostile holder of an ingest key (public in any web page) or of a read token
// could send, as found by the hostile-input run against a fresh stack: each once stalled the whole
// one-process stack, failed another project, or poisoned a project's reads. The hostile-input e2e
// suite sends them while it watches the event loop; `pnpm bench` (suite `hostile`) sends them
// while another project reads and writes.

export interface HostileTarget {
  urls: { core: string; recall: string; gateway: string; console: string };
  /** The attacking project's ingest key and read token. */
  key: { key_id: string; secret: string };
  token: string;
}

export interface Answer {
  status: number;
  text: string;
}

export interface WorstInput {
  name: string;
  /** Builds what `send` posts ahead of time, where that takes the sender's CPU (see prepareWorstInputs). */
  prepare?(): Promise<unknown>;
  send(target: HostileTarget): Promise<Answer[]>;
}

/** fetch's types take a Uint8Array view, not Node's Buffer. */
const bodyInit = (body: Buffer | string) => (typeof body === 'string' ? body : new Uint8Array(body));

const answer = async (res: Response): Promise<Answer> => ({ status: res.status, text: await res.text() });

/** A signed request to the core or to recall (ingest key headers; a GET signs the empty body). */
export async function signedFetch(
  base: string,
  path: string,
  key: HostileTarget['key'],
  init: { body?: Buffer | string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const ts = Math.floor(Date.now() / 1000);
  const body = init.body ?? '';
  const url = new URL(path, base);
  const method = init.body === undefined ? 'GET' : 'POST';
  // Recall's device requests are signed whole (method, path and query, a nonce); the core's, by body.
  const signing = url.pathname.startsWith('/device/')
    ? signedDeviceHeaders(key, { method, target: url.pathname + url.search, body, timestampSeconds: ts })
    : {
        'x-svc-key': key.key_id,
        'x-svc-timestamp': String(ts),
        'x-svc-signature': signIngestBody(key.secret, ts, body),
      };
  return fetch(url, {
    method,
    headers: {
      ...(init.body === undefined ? {} : { 'content-type': init.contentType ?? 'application/json' }),
      ...signing,
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: bodyInit(init.body) }),
    signal: AbortSignal.timeout(120_000),
  });
}

const otlpPost = (target: HostileTarget, path: string, body: Buffer | string, contentType: string) =>
  fetch(new URL(path, target.urls.core), {
    method: 'POST',
    headers: { 'content-type': contentType, 'x-svc-ingest-key': `${target.key.key_id}:${target.key.secret}` },
    body: bodyInit(body),
    signal: AbortSignal.timeout(120_000),
  });

/** A tool call over REST with the attacker's own read token. */
export const callTool = async (target: HostileTarget, tool: string, args: unknown): Promise<Answer> =>
  answer(
    await fetch(new URL(`/v1/tools/${tool}`, target.urls.gateway), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${target.token}` },
      body: JSON.stringify(args),
      signal: AbortSignal.timeout(120_000),
    }),
  );

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const nowIso = () => new Date().toISOString();

/** An OTLP JSON span whose one attribute is a kvlist nested `depth` deep. */
function deepOtlpJson(depth: number): string {
  let value: unknown = { stringValue: 'leaf' };
  for (let i = 0; i < depth; i++) value = { kvlistValue: { values: [{ key: `k${i}`, value }] } };
  const start = BigInt(Date.now()) * 1_000_000n;
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'hostile' } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId: hex(16),
                spanId: hex(8),
                name: 'deep',
                kind: 2,
                startTimeUnixNano: String(start),
                endTimeUnixNano: String(start + 1_000_000n),
                attributes: [{ key: 'nested', value }],
              },
            ],
          },
        ],
      },
    ],
  });
}

/** 100,000 spans in one protobuf body (a collector's batch is 8192 at most by default). */
function manySpansProtobuf(count: number): Buffer {
  const start = BigInt(Date.now()) * 1_000_000n;
  const traceId = randomBytes(16);
  const spans = [];
  for (let i = 0; i < count; i++)
    spans.push(
      protoSpan({
        traceId,
        spanId: randomBytes(8),
        name: `op ${i % 50}`,
        startNs: start + BigInt(i) * 1000n,
        endNs: start + BigInt(i) * 1000n + 500n,
      }),
    );
  return traceRequestBody(spans, 'hostile');
}

// --- recall files ---------------------------------------------------------------------------

function encrypt(plain: Buffer, key: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

/** gzip of `unit` repeated to `inflatedBytes`, compressed chunk by chunk (the text is never whole). */
async function gzipRepeated(unit: string, inflatedBytes: number): Promise<Buffer> {
  const chunk = Buffer.from(unit.repeat(Math.max(1, Math.floor((1 << 20) / unit.length))), 'utf8');
  const gz = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gz.on('data', (d: Buffer) => out.push(d));
  const ended = new Promise<void>((resolve, reject) => {
    gz.once('end', resolve);
    gz.once('error', reject);
  });
  for (let written = 0; written < inflatedBytes; ) {
    const piece = chunk.subarray(0, Math.min(chunk.length, inflatedBytes - written));
    if (!gz.write(piece)) await new Promise((resolve) => gz.once('drain', resolve));
    written += piece.length;
  }
  gz.end();
  await ended;
  return Buffer.concat(out);
}

const cache = new Map<string, Promise<Buffer>>();
/** Built once per process: a few of these take a second or two of CPU to compress. */
function once(name: string, make: () => Promise<Buffer> | Buffer): Promise<Buffer> {
  let made = cache.get(name);
  if (!made) {
    made = Promise.resolve(make());
    cache.set(name, made);
  }
  return made;
}

export const RECALL_FILES = {
  /** 2.76 M short valid lines: about 300 KB uploaded. */
  millionsOfLines: () =>
    once('lines', () => gzipRepeated('{"ts":"t","level":"INFO","message":"m"}\n', 2_760_000 * 40)),
  /** gzip of 99 MiB of newlines: about 100 KB uploaded. */
  newlines: () => once('newlines', () => gzipRepeated('\n', 99 * 1024 * 1024)),
  /** Valid lines past the 100 MB inflate limit: the lines before it must come back. */
  past100MB: () =>
    once('past100', () =>
      gzipRepeated(
        '{"ts":"2026-11-20T09:00:00Z","level":"WARN","message":"before the limit"}\n',
        110 * 1024 * 1024,
      ),
    ),
};

/** Uploads `gzipped` as a recall file of the attacker's project; answers the upload's answer and the file id. */
export async function uploadRecallFile(
  target: HostileTarget,
  gzipped: Buffer,
  name: string,
): Promise<{ upload: Answer; fileId: string | undefined }> {
  const keyAnswer = await signedFetch(target.urls.recall, '/device/v1/key', target.key);
  const { key, key_version } = (await keyAnswer.json()) as { key: string; key_version: number };
  const query = new URLSearchParams({
    device_id: 'hostile-device',
    file_name: name,
    date: nowIso().slice(0, 10),
    key_version: String(key_version),
  });
  const upload = await answer(
    await signedFetch(target.urls.recall, `/device/v1/files?${query}`, target.key, {
      body: encrypt(gzipped, Buffer.from(key, 'base64')),
      contentType: 'application/octet-stream',
    }),
  );
  const fileId = upload.status === 201 ? (JSON.parse(upload.text) as { file_id: string }).file_id : undefined;
  return { upload, fileId };
}

function recallRead(name: string, file: () => Promise<Buffer>, args: Record<string, unknown>): WorstInput {
  return {
    name,
    async send(target) {
      const { upload, fileId } = await uploadRecallFile(target, await file(), `${name}.log`);
      if (!fileId) return [upload];
      return [upload, await callTool(target, 'log.file_entries', { file_id: fileId, ...args })];
    },
  };
}

const batch = (target: HostileTarget, records: Record<string, unknown>) =>
  signedFetch(target.urls.core, '/ingest/v1/batch', target.key, { body: JSON.stringify(records) }).then(
    answer,
  );

const deepProperties = (depth: number) => {
  let properties: unknown = 'leaf';
  for (let i = 0; i < depth; i++) properties = { a: properties };
  return properties;
};

/** The reproductions, each a request (or an upload and a read) a tenant can send. */
export const WORST_INPUTS: WorstInput[] = [
  recallRead('recall: 2.76 M short lines, read 2', RECALL_FILES.millionsOfLines, { limit: 2 }),
  recallRead('recall: 99 MiB of newlines', RECALL_FILES.newlines, { limit: 2 }),
  recallRead('recall: past the 100 MB inflate limit', RECALL_FILES.past100MB, { limit: 5 }),
  recallRead('recall: past the 100 MB inflate limit, filtered to nothing', RECALL_FILES.past100MB, {
    q: 'absent-text',
  }),
  {
    name: 'OTLP JSON: attribute kvlist nested 26 deep',
    send: async (t) => [await answer(await otlpPost(t, '/v1/traces', deepOtlpJson(26), 'application/json'))],
  },
  {
    name: 'OTLP JSON: attribute kvlist nested 1000 deep',
    send: async (t) => [
      await answer(await otlpPost(t, '/v1/traces', deepOtlpJson(1000), 'application/json')),
    ],
  },
  {
    name: 'OTLP protobuf: attribute kvlist nested 1000 deep',
    send: async (t) => {
      const start = BigInt(Date.now()) * 1_000_000n;
      const body = traceRequestBody([
        protoSpan({
          traceId: randomBytes(16),
          spanId: randomBytes(8),
          name: 'deep',
          startNs: start,
          endNs: start + 1000n,
          extra: [nestedKvlistAttribute(1000)],
        }),
      ]);
      return [await answer(await otlpPost(t, '/v1/traces', body, 'application/x-protobuf'))];
    },
  },
  {
    name: 'OTLP protobuf: 100,000 spans in one body',
    prepare: () => once('100k', () => manySpansProtobuf(100_000)),
    send: async (t) => [
      await answer(
        await otlpPost(
          t,
          '/v1/traces',
          await once('100k', () => manySpansProtobuf(100_000)),
          'application/x-protobuf',
        ),
      ),
    ],
  },
  {
    name: 'OTLP JSON: traceId as a number, resourceSpans as an object',
    send: async (t) => [
      await answer(
        await otlpPost(
          t,
          '/v1/traces',
          JSON.stringify({
            resourceSpans: [
              { scopeSpans: [{ spans: [{ traceId: 12345, spanId: hex(8), name: 'n', kind: 2 }] }] },
            ],
          }),
          'application/json',
        ),
      ),
      await answer(
        await otlpPost(t, '/v1/traces', JSON.stringify({ resourceSpans: { a: 1 } }), 'application/json'),
      ),
    ],
  },
  {
    name: 'signed batch: a lone surrogate, 4 at once',
    send: (t) =>
      Promise.all(
        // Four different bodies (one signed request is accepted once; these are four requests).
        [0, 1, 2, 3].map((i) =>
          batch(t, {
            logs: [{ timestamp: nowIso(), level: 'INFO', message: `x\ud800 ${i}`, source: 'backend' }],
          }),
        ),
      ),
  },
  {
    name: 'signed batch: a span of duration 1e308',
    send: async (t) => [
      await batch(t, {
        spans: [
          {
            trace_id: hex(16),
            span_id: hex(8),
            kind: 'server',
            status: 'ok',
            operation: 'GET /poison',
            start_time: nowIso(),
            duration_ms: 1e308,
          },
        ],
      }),
    ],
  },
  {
    name: 'signed batch: event properties nested 2,000 deep',
    send: async (t) => [
      await batch(t, {
        events: [{ timestamp: nowIso(), event_name: 'deep', user_id: 'u', properties: deepProperties(2000) }],
      }),
    ],
  },
  {
    name: 'console: gzip body inflating past 256 KB',
    send: async (t) => [
      await answer(
        await fetch(new URL('/login', t.urls.console), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' },
          body: gzipSync(Buffer.alloc(4 * 1024 * 1024, 'a')),
          signal: AbortSignal.timeout(120_000),
        }),
      ),
    ],
  },
];

/**
 * Builds every input's body before a run. Building the 100,000-span body holds the sender's event
 * loop for seconds on a loaded machine; a bystander's client in the same process would sit still
 * meanwhile, which an attacker on another machine never causes.
 */
export async function prepareWorstInputs(): Promise<void> {
  for (const input of WORST_INPUTS) await input.prepare?.();
}

/** A stable id for a worst input (file names, metric labels). */
export const worstInputId = (input: WorstInput) =>
  createHash('sha256').update(input.name).digest('hex').slice(0, 8);
