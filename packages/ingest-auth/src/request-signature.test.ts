import { execFileSync } from 'node:child_process';
import type { IngestKey } from './key-resolver';
import { authenticateSignedRequest, requestSignatureMatches, signRequest } from './request-signature';
import { signIngestBody } from './signature';

const SECRET = 'k3y';
const parts = {
  timestamp: 1700000000,
  nonce: 'n0nce-0123456789abcdef',
  method: 'POST',
  target: '/device/v1/files?device_id=d1&file_name=app.ndjson',
};
const body = Buffer.from([0, 1, 2, 255, 10, 13]);

describe('request signature (v2)', () => {
  it('equals the openssl command of the docs', () => {
    // docs/ingest.md signs with:
    // { printf 'v2\n%s\n%s\n%s\n%s\n' "$TS" "$NONCE" POST "$TARGET"; cat body.bin; } | openssl dgst -sha256 -hmac "$SECRET"
    const hex = execFileSync(
      'sh',
      [
        '-c',
        `{ printf 'v2\\n%s\\n%s\\n%s\\n%s\\n' "$TS" "$NONCE" POST "$TARGET"; printf '\\000\\001\\002\\377\\n\\r'; } | openssl dgst -sha256 -hmac "$SECRET" | sed 's/^.* //'`,
      ],
      { env: { PATH: process.env.PATH, TS: '1700000000', NONCE: parts.nonce, TARGET: parts.target, SECRET } },
    )
      .toString()
      .trim();
    expect(signRequest(SECRET, parts, body)).toBe(`v2=${hex}`);
  });

  it('covers the method, the path and query, the timestamp, the nonce, the body and the secret', async () => {
    const sig = signRequest(SECRET, parts, body);
    expect(await requestSignatureMatches(SECRET, parts, body, sig)).toBe(true);
    const changed = [
      { ...parts, method: 'GET' },
      { ...parts, target: '/device/v1/files?device_id=d2&file_name=app.ndjson' },
      { ...parts, target: '/device/v1/files?device_id=d1&file_name=app.ndjson&request_id=r9' },
      { ...parts, target: '/device/v1/key' },
      { ...parts, timestamp: 1700000001 },
      { ...parts, nonce: 'n0nce-0123456789abcdeF' },
    ];
    for (const other of changed) expect(await requestSignatureMatches(SECRET, other, body, sig)).toBe(false);
    expect(await requestSignatureMatches(SECRET, parts, Buffer.concat([body, Buffer.from(' ')]), sig)).toBe(
      false,
    );
    expect(await requestSignatureMatches('other', parts, body, sig)).toBe(false);
  });
});

describe('authenticateSignedRequest', () => {
  const key: IngestKey = { projectId: 'prj_1', secret: SECRET, active: true, allowedOrigins: [] };
  const deps = {
    ingestKeys: { resolve: async (id: string) => (id === 'key_1' ? key : null) },
    now: () => 1700000000_000,
  };
  const request = { method: 'POST', target: parts.target, body };
  const headersOf = (h: Record<string, string>) => (name: string) => h[name];
  const signed = {
    'x-svc-key': 'key_1',
    'x-svc-timestamp': String(parts.timestamp),
    'x-svc-nonce': parts.nonce,
    'x-svc-signature': signRequest(SECRET, parts, body),
  };

  it('names the project, key, nonce and timestamp of a request signed whole', async () => {
    expect(await authenticateSignedRequest(headersOf(signed), request, deps)).toEqual({
      projectId: 'prj_1',
      keyId: 'key_1',
      nonce: parts.nonce,
      timestamp: parts.timestamp,
    });
  });

  it('refuses a body-only (v1) signature, another query, a stale timestamp, a bad nonce, no nonce', async () => {
    const refused = [
      { ...signed, 'x-svc-signature': signIngestBody(SECRET, parts.timestamp, body) },
      { ...signed, 'x-svc-nonce': 'short' },
      { ...signed, 'x-svc-nonce': `${'a'.repeat(20)}\n` },
      { ...signed, 'x-svc-key': 'key_2' },
    ];
    for (const headers of refused)
      await expect(authenticateSignedRequest(headersOf(headers), request, deps)).rejects.toMatchObject({
        code: 'unauthorized',
        message: expect.stringContaining('nonce and request signature (v2'),
      });
    const { 'x-svc-nonce': _, ...noNonce } = signed;
    await expect(authenticateSignedRequest(headersOf(noNonce), request, deps)).rejects.toMatchObject({
      code: 'unauthorized',
    });
    const otherQuery = { ...request, target: parts.target.replace('d1', 'd2') };
    await expect(authenticateSignedRequest(headersOf(signed), otherQuery, deps)).rejects.toMatchObject({
      reason: 'bad signature',
    });
    const later = { ...deps, now: () => (parts.timestamp + 301) * 1000 };
    await expect(authenticateSignedRequest(headersOf(signed), request, later)).rejects.toMatchObject({
      reason: 'timestamp outside the allowed skew',
    });
  });
});
