import { drained } from '@svc/tool-server/http-writes';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';

// The MCP SDK serves web-standard Requests and answers web-standard Responses; the gateway is an
// express app. These two functions are the whole bridge: the JSON body express already read is
// handed to the SDK as parsed (never serialized again), and the answer is written back as it
// streams (an SSE stream stays open as long as the client keeps it, and is cancelled when the
// client goes away).

/** Headers that described the raw body express has already read and decoded. */
const BODY_HEADERS = new Set(['content-length', 'content-encoding', 'transfer-encoding']);

/**
 * The web Request of an express request, without its body (the SDK gets the parsed body
 * separately). `signal` aborts when the client goes away before the answer is written: the SDK
 * then cancels the call, down to the backend's query. Without it the Request follows no signal: a
 * Request made to follow one costs three times as much (tens of microseconds), so a caller that can
 * cancel the call another way passes none (mcp-modern-exchange.ts).
 */
export function webRequestOf(req: ExpressRequest, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':') || BODY_HEADERS.has(name)) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  // The URL's origin is not the client's to choose: Host was checked (origin-guard.ts) and the SDK
  // reads nothing else of the URL.
  return new Request(new URL(req.originalUrl, 'http://localhost'), {
    method: req.method,
    headers,
    ...(signal ? { signal } : {}),
  });
}

/** An AbortController that aborts when the client goes away before the answer was written. */
export function abortOnClientGone(res: ExpressResponse): AbortController {
  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  return abort;
}

/**
 * Writes a web Response to express: an event stream as it comes (its headers at once), anything
 * else whole.
 */
export async function sendWebResponse(res: ExpressResponse, response: Response): Promise<void> {
  res.status(response.status);
  response.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  if (!response.body) {
    res.end();
    return;
  }
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    // A whole answer (JSON): one write with its Content-Length, not a chunked stream of a write
    // per chunk and another for the end.
    const body = Buffer.from(await response.arrayBuffer());
    if (!res.destroyed) res.end(body);
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  res.once('close', cancel);
  let complete = false;
  try {
    while (!res.destroyed) {
      const { done, value } = await reader.read();
      if (done) {
        complete = true;
        break;
      }
      if (!res.write(value)) await drained(res);
    }
  } catch {
    // The stream was cancelled (the client went away) or failed: there is nobody left to tell.
  } finally {
    res.off('close', cancel);
    // A client gone before the stream ended: the stream's producer learns it here.
    if (!complete) cancel();
  }
  if (!res.destroyed) res.end();
}
