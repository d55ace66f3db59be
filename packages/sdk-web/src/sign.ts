import { type HexHmac, ingestSignatureAsync } from '@svc/sdk-core';

// HMAC-SHA256 through Web Crypto, the browser's only HMAC: asynchronous, so the exporter awaits
// the signature. The imported key is kept per secret (importing costs more than signing).
const keys = new Map<string, Promise<CryptoKey>>();
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function keyFor(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey(
      'raw',
      new TextEncoder().encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    keys.set(secret, key);
  }
  return key;
}

/** Web Crypto's HMAC-SHA256 as sdk-core's signing takes it. */
const webHmacHex: HexHmac<string, Promise<string>> = async (secret, prefix, body) => {
  const mac = new Uint8Array(
    await crypto.subtle.sign('HMAC', await keyFor(secret), new TextEncoder().encode(prefix + body)),
  );
  let hex = '';
  for (const byte of mac) hex += HEX[byte];
  return hex;
};

/** `X-Svc-Signature`: `v1=` + hex HMAC-SHA256 with the key's secret over `timestamp + "." + body`. */
export function signBody(secret: string, timestamp: number, body: string): Promise<string> {
  return ingestSignatureAsync(webHmacHex, secret, timestamp, body);
}
