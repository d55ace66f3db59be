import { z } from 'zod';

// What identity's invalidation channel sends (an SSE stream: hello, invalidate, heartbeat).

export const invalidationEventSchema = z.object({
  seq: z.number().int(),
  kind: z.enum(['token', 'org', 'project', 'all']),
  token_id: z.string().optional(),
  org_id: z.string().optional(),
  project_id: z.string().optional(),
});
export type InvalidationEvent = z.infer<typeof invalidationEventSchema>;

export const helloSchema = z.object({
  subscriber_id: z.string(),
  seq: z.number().int(),
  lease_ms: z.number().int().positive(),
  heartbeat_ms: z.number().int().positive(),
});

export const heartbeatSchema = z.object({ seq: z.number().int() });

/** What a cache needs to hear. */
export interface InvalidationTarget {
  evict(event: InvalidationEvent): void;
  /** Forget everything: a (re)subscription, a missed event, a lost lease. */
  clear(): void;
}

/** Opens identity's invalidation stream and hands each message to `handle` until it ends. */
export async function readInvalidationStream(
  base: string,
  internalSecret: string,
  signal: AbortSignal,
  handle: (event: string, data: string) => void,
): Promise<void> {
  const res = await fetch(`${base}/internal/v1/invalidations`, {
    headers: { accept: 'text/event-stream', 'x-internal-secret': internalSecret },
    signal,
  });
  if (res.status !== 200 || !res.body) {
    await res.arrayBuffer().catch(() => {});
    throw new Error(`invalidation stream answered ${res.status}`);
  }
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      handle(event, data);
    }
  }
}
