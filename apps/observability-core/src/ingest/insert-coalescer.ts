import { createHash } from 'node:crypto';
import type { ClickHouse } from '@svc/clickhouse';

// Group commit for ingest inserts. An insert into a table with its projections and skip indexes
// costs ~20 ms of the engine whatever its size, then ~5 us a row, and an embedded engine runs one
// statement at a time: at 1000 spans a request, the fixed cost alone capped ingest near 40k spans/s.
// So one insert per table runs at a time; requests that arrive meanwhile wait for it and then go
// in together, as one insert. A lone request is inserted at once (no added latency); under load
// the groups grow by themselves.

type Row = Record<string, unknown>;

/** The tables' own deduplication window (non_replicated_deduplication_window). */
const REMEMBERED_TOKENS = 10_000;

interface Waiting {
  rows: readonly Row[];
  token: string | undefined;
  done: (err?: unknown) => void;
}

export interface InsertCoalescerOptions {
  /** Rows per grouped insert at most (a single request's rows always go in whole). Default 50,000. */
  maxRows?: number;
}

/**
 * `ch` whose inserts are grouped per table. Deduplication tokens keep their promise: an insert
 * whose token a table already took is dropped. The engine checks a lone insert's token itself
 * (across restarts too); a group goes in under a token of its own, so the coalescer remembers the
 * members' tokens (the last 10,000 per table, as the tables do) and drops a repeat in this process.
 */
export function coalesceInserts(ch: ClickHouse, options: InsertCoalescerOptions = {}): ClickHouse {
  const maxRows = options.maxRows ?? 50_000;
  const queues = new Map<string, Waiting[]>();
  const running = new Set<string>();
  const taken = new Map<string, Set<string>>();

  function remember(table: string, group: readonly Waiting[]): void {
    let tokens = taken.get(table);
    if (!tokens) {
      tokens = new Set();
      taken.set(table, tokens);
    }
    for (const { token } of group) {
      if (token === undefined) continue;
      tokens.add(token);
      // Insertion order is age order: the oldest go first.
      if (tokens.size > REMEMBERED_TOKENS) tokens.delete(tokens.values().next().value as string);
    }
  }

  async function drain(table: string, queue: Waiting[]): Promise<void> {
    running.add(table);
    while (queue.length > 0) {
      let rows = queue[0]!.rows.length;
      let take = 1;
      while (take < queue.length && rows + queue[take]!.rows.length <= maxRows)
        rows += queue[take++]!.rows.length;
      const group = queue.splice(0, take);
      const token = group.length === 1 ? group[0]!.token : groupToken(group);
      try {
        await ch.insert(table, group.length === 1 ? group[0]!.rows : group.flatMap((w) => w.rows), {
          ...(token ? { deduplicationToken: token } : {}),
        });
        remember(table, group);
        for (const waiting of group) waiting.done();
      } catch (err) {
        for (const waiting of group) waiting.done(err);
      }
    }
    running.delete(table);
  }

  return {
    ...ch,
    insert(table, rows, insertOptions) {
      const token = insertOptions?.deduplicationToken;
      if (rows.length === 0 || (token !== undefined && taken.get(table)?.has(token)))
        return Promise.resolve();
      let queue = queues.get(table);
      if (!queue) {
        queue = [];
        queues.set(table, queue);
      }
      const entry = queue;
      return new Promise<void>((resolve, reject) => {
        entry.push({
          rows,
          token,
          done: (err) => (err === undefined ? resolve() : reject(err)),
        });
        if (!running.has(table)) void drain(table, entry);
      });
    },
  };
}

/** A token for a group: the same members in the same order give the same token. */
function groupToken(group: readonly Waiting[]): string | undefined {
  if (group.every((w) => w.token === undefined)) return undefined;
  const hash = createHash('sha256');
  for (const waiting of group) hash.update(`${waiting.token ?? ''}\u0000`);
  return `group:${hash.digest('hex')}`;
}
