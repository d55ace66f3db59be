import { createHmac } from 'node:crypto';

/** `X-Svc-Signature`: `v1=` + hex HMAC-SHA256 with the key's secret over `timestamp + "." + body`. */
export function signBody(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(body, 'utf8').digest('hex')}`;
}
