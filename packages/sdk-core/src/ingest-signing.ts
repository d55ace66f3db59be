// How an ingest request is signed (docs/ingest.md, "Authentication"), written once for every runtime:
//   X-Svc-Key:       the ingest key's id
//   X-Svc-Timestamp: unix seconds when it was signed
//   X-Svc-Signature: v1=<hex HMAC-SHA256(secret, timestamp + "." + body as sent)>
// The HMAC itself is the runtime's (node:crypto, Web Crypto, a React Native native module): each
// passes it in. The services check a request with the same function (ingest-auth), so the signed
// text cannot differ between the SDKs, the CLI and the check.

/**
 * HMAC-SHA256 with `secret` over `prefix` (UTF-8) then `body`, as lowercase hex: the runtime's own,
 * synchronous (node:crypto) or not (Web Crypto).
 */
export type HexHmac<B, R extends string | Promise<string>> = (secret: string, prefix: string, body: B) => R;

/** A type, not an interface: it is a `Record<string, string>` of headers as well. */
export type IngestHeaders = {
  'x-svc-key': string;
  'x-svc-timestamp': string;
  'x-svc-signature': string;
};

/** `v1=` + hex HMAC-SHA256 with the key's secret over `timestamp + "." + body`, by a synchronous HMAC. */
export function ingestSignature<B>(
  hmac: HexHmac<B, string>,
  secret: string,
  timestamp: number | string,
  body: B,
): string {
  return `v1=${hmac(secret, `${timestamp}.`, body)}`;
}

/**
 * `ingestSignature` by an asynchronous HMAC (Web Crypto, a native module). A function of its own,
 * not one that tells the two apart: the web's bundle carries only this one.
 */
export async function ingestSignatureAsync<B>(
  hmac: HexHmac<B, Promise<string>>,
  secret: string,
  timestamp: number | string,
  body: B,
): Promise<string> {
  // The same text as ingestSignature's, written twice on purpose: a helper both call would be
  // bytes in the web's bundle (esbuild does not inline functions).
  return `v1=${await hmac(secret, `${timestamp}.`, body)}`;
}

/** The headers that authenticate an ingest request signed at `timestamp` with `signature`. */
export function ingestHeaders(keyId: string, timestamp: number | string, signature: string): IngestHeaders {
  return { 'x-svc-key': keyId, 'x-svc-timestamp': String(timestamp), 'x-svc-signature': signature };
}

/** The signed headers of `body`, sent at `timestamp` (unix seconds) under `key`. */
export function signIngest<B>(
  key: { keyId: string; secret: string },
  timestamp: number | string,
  body: B,
  hmac: HexHmac<B, string>,
): IngestHeaders {
  return ingestHeaders(key.keyId, timestamp, ingestSignature(hmac, key.secret, timestamp, body));
}
