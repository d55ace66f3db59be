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

/** `X-Svc-Signature`: `v1=` + hex HMAC-SHA256 with the key's secret over `timestamp + "." + body`. */
export async function signBody(secret: string, timestamp: number, body: string): Promise<string> {
  const mac = new Uint8Array(
    await crypto.subtle.sign('HMAC', await keyFor(secret), new TextEncoder().encode(`${timestamp}.${body}`)),
  );
  let hex = 'v1=';
  for (const byte of mac) hex += HEX[byte];
  return hex;
}
