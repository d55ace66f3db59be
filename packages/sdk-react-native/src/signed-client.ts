import {
  EXPORTER_HEADER,
  type ExportSend,
  type HexHmac,
  type IngestTarget,
  ingestHeaders,
  ingestSignatureAsync,
} from '@svc/sdk-core';
import { concatBytes, toHex, utf8 } from './bytes';
import type { HttpAnswer, HttpFetch, SdkCrypto } from './platform';
import { unrefTimer } from './timers';

// A Date answer further than this from the local clock is taken as the local clock being wrong.
const CLOCK_SKEW_MS = 60_000;
const DEFAULT_TIMEOUT_MS = 15_000;

export interface SignedRequest {
  method: 'GET' | 'POST';
  url: string;
  /**
   * Recall's device requests: the path and query as sent (`url` ends with it), signed whole with a
   * fresh nonce (v2). Absent: the ingest signature over the timestamp and body (the core's batches).
   */
  target?: string;
  /** Signed as sent; a GET signs an empty body. */
  body?: Uint8Array | string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/**
 * Runs `send` with a signal that aborts after `timeoutMs` (React Native has no
 * AbortSignal.timeout), and clears the timer whatever happens.
 */
export async function withTimeout<T>(
  timeoutMs: number,
  send: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  // Unref'd in Node: a request of the SDK never keeps a process alive.
  const timer = unrefTimer(setTimeout(() => controller.abort(), timeoutMs));
  try {
    return await send(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The SDK's own requests, signed with the ingest key (docs/ingest.md, "Authentication") like every SDK
 * request: to the core (`/ingest/v1/batch`, the body signed) and to recall (`/device/v1/...`, the
 * whole request signed, with a nonce: docs/recall.md, "Device side"). They carry the
 * exporter header, so the app's fetch and XMLHttpRequest instrumentation leaves them alone. A 401
 * whose Date shows the device's clock off by more than a minute is tried again once with the
 * server's time: phones with a wrong clock are common.
 */
export class SignedClient {
  private readonly key: Uint8Array;
  private clockOffsetMs = 0;

  constructor(
    readonly target: IngestTarget,
    private readonly crypto: SdkCrypto,
    private readonly http: HttpFetch,
  ) {
    this.key = utf8(target.secret);
  }

  /** The platform's HMAC-SHA256 (a native module, or JavaScript) as sdk-core's signing takes it. */
  private readonly hmacHex: HexHmac<Uint8Array, Promise<string>> = async (_secret, prefix, body) =>
    toHex(await this.crypto.hmacSha256(this.key, concatBytes(utf8(prefix), body)));

  /** `v1=` + hex HMAC-SHA256 over `timestamp + "." + body`. */
  signature(timestamp: number, body: Uint8Array): Promise<string> {
    return ingestSignatureAsync(this.hmacHex, this.target.secret, timestamp, body);
  }

  /**
   * `v2=` + hex HMAC-SHA256 over `"v2\n" + timestamp + "\n" + nonce + "\n" + METHOD + "\n" +
   * target + "\n" + body`: a request signed whole, so a captured one cannot be sent under another
   * query, and single-use (recall remembers the nonce while the timestamp is fresh).
   */
  async requestSignature(
    timestamp: number,
    nonce: string,
    method: string,
    target: string,
    body: Uint8Array,
  ): Promise<string> {
    const signed = concatBytes(utf8(`v2\n${timestamp}\n${nonce}\n${method}\n${target}\n`), body);
    return `v2=${toHex(await this.crypto.hmacSha256(this.key, signed))}`;
  }

  /** The headers that sign one attempt of a request (each attempt its own timestamp and nonce). */
  private async signingHeaders(
    request: SignedRequest,
    timestamp: number,
    body: Uint8Array,
  ): Promise<Record<string, string>> {
    const { keyId } = this.target;
    if (request.target === undefined)
      return ingestHeaders(keyId, timestamp, await this.signature(timestamp, body));
    if (!request.url.endsWith(request.target)) throw new TypeError('the signed target must end the url');
    const nonce = toHex(this.crypto.randomBytes(16));
    const signature = await this.requestSignature(timestamp, nonce, request.method, request.target, body);
    return { ...ingestHeaders(keyId, timestamp, signature), 'x-svc-nonce': nonce };
  }

  async request(request: SignedRequest): Promise<HttpAnswer> {
    const body = typeof request.body === 'string' ? utf8(request.body) : (request.body ?? new Uint8Array());
    for (let attempt = 0; ; attempt++) {
      const timestamp = Math.floor((Date.now() + this.clockOffsetMs) / 1000);
      const headers: Record<string, string> = {
        ...request.headers,
        ...(await this.signingHeaders(request, timestamp, body)),
        [EXPORTER_HEADER]: '1',
      };
      const answer = await withTimeout(request.timeoutMs ?? DEFAULT_TIMEOUT_MS, (signal) =>
        this.http(request.url, {
          method: request.method,
          headers,
          ...(request.method === 'POST' ? { body: request.body ?? body } : {}),
          signal,
        }),
      );
      if (answer.status === 401 && attempt === 0 && this.skewCorrected(answer.headers.get('date'))) continue;
      return answer;
    }
  }

  /** The exporter's sender: the platform's fetch, a timeout of its own, the answer's body dropped. */
  readonly send: ExportSend = async (url, { headers, body, timeoutMs }) => {
    const answer = await withTimeout(timeoutMs, (signal) =>
      this.http(url, { method: 'POST', headers, body, signal }),
    );
    await answer.text().catch(() => undefined);
    return { status: answer.status, header: (name) => answer.headers.get(name) };
  };

  /** Whether a 401's Date shows the local clock off, in which case the offset is now corrected. */
  private skewCorrected(date: string | null): boolean {
    const serverMs = date ? Date.parse(date) : Number.NaN;
    if (!Number.isFinite(serverMs)) return false;
    const offset = serverMs - Date.now();
    if (Math.abs(offset - this.clockOffsetMs) < CLOCK_SKEW_MS) return false;
    this.clockOffsetMs = offset;
    return true;
  }
}
