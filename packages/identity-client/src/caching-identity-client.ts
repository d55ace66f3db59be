import { createHash } from 'node:crypto';
import type { IntrospectionResponse } from '@svc/auth';
import type { Metrics } from '@svc/metrics';
import type { IdentityClient } from './identity-client';
import type { InvalidationEvent, InvalidationTarget } from './invalidation-events';
import type { InvalidationSubscriber } from './invalidation-subscriber';

type Active = Extract<IntrospectionResponse, { active: true }>;

interface Entry {
  answer: Active;
  /** Epoch ms after which the entry is not used: the token's expiry, or the cache's own bound. */
  until: number;
}

export interface CachingIdentityClient extends IdentityClient, InvalidationTarget {
  size(): number;
}

export interface TokenCacheOptions {
  maxEntries?: number;
  /** Longest an answer is kept even if nothing invalidates it (the token's expiry may be sooner). */
  maxTtlMs?: number;
  now?: () => number;
  metrics: Metrics;
}

/**
 * Introspection answers cached by the SHA-256 of the token (never the token), with the org's
 * capabilities they carry, used only while the invalidation subscriber holds a lease. Only active
 * answers are kept; an answer is not cached when anything was invalidated while it was in flight
 * (it may predate the change) or when the lease is not held.
 */
export function createCachingIdentityClient(
  inner: IdentityClient,
  subscriber: () => InvalidationSubscriber,
  options: TokenCacheOptions,
): CachingIdentityClient {
  const maxEntries = options.maxEntries ?? 10_000;
  const maxTtlMs = options.maxTtlMs ?? 5 * 60_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const lookups = options.metrics.counter('token_cache_lookups_total', 'Token cache lookups by outcome', [
    'outcome',
  ]);
  // Bound once: every call looks its token up.
  const hits = lookups.bind({ outcome: 'hit' });
  const misses = lookups.bind({ outcome: 'miss' });
  const withoutLease = lookups.bind({ outcome: 'no_lease' });

  const keyOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

  function remove(match: (a: Active) => boolean): void {
    for (const [key, entry] of entries) if (match(entry.answer)) entries.delete(key);
  }

  return {
    async introspect(token, opts) {
      const key = keyOf(token);
      const sub = subscriber();
      if (sub.leaseValid()) {
        const hit = entries.get(key);
        if (hit && hit.until > now()) {
          hits.inc();
          return hit.answer;
        }
        if (hit) entries.delete(key);
        misses.inc();
      } else {
        withoutLease.inc();
      }
      const generation = sub.generation;
      const answer = await inner.introspect(token, opts);
      if (answer.active && sub.generation === generation && sub.leaseValid()) {
        entries.delete(key);
        entries.set(key, { answer, until: Math.min(Date.parse(answer.expires_at), now() + maxTtlMs) });
        if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      }
      return answer;
    },
    evict(event: InvalidationEvent) {
      if (event.kind === 'all') entries.clear();
      else if (event.kind === 'token') remove((a) => a.token_id === event.token_id);
      else if (event.kind === 'org') remove((a) => a.org_id === event.org_id);
      else remove((a) => a.project_id === event.project_id);
    },
    clear() {
      entries.clear();
    },
    size: () => entries.size,
  };
}
