import type { Breadcrumb } from './records';

/** The ingest format takes at most 200 a crash; a trail of the last 100 says what led to it. */
export const DEFAULT_BREADCRUMBS = 100;
const MAX_BREADCRUMBS = 200;

/**
 * What happened before a crash (navigation, requests, log lines), newest kept: a ring of at most
 * `limit`, the oldest overwritten and counted as dropped.
 */
export class Breadcrumbs {
  private readonly ring: Breadcrumb[] = [];
  private next = 0;
  dropped = 0;
  private readonly limit: number;

  constructor(limit = DEFAULT_BREADCRUMBS) {
    this.limit = Math.max(1, Math.min(MAX_BREADCRUMBS, Math.floor(limit)));
  }

  add(category: string, message: string, level?: string, timestamp = Date.now()): void {
    const crumb: Breadcrumb = {
      timestamp,
      category: category.slice(0, 200) || 'default',
      message: message.slice(0, 4096),
    };
    if (level) crumb.level = level.slice(0, 20);
    if (this.ring.length < this.limit) {
      this.ring.push(crumb);
      return;
    }
    this.ring[this.next] = crumb;
    this.next = (this.next + 1) % this.limit;
    this.dropped++;
  }

  /** Oldest first. */
  snapshot(): Breadcrumb[] {
    return [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }
}
