import { createHash } from 'node:crypto';
import { type ClickHouse, refusedByEngine } from '@svc/clickhouse';

// Group commit for ingest inserts. An insert into a table with its projections and skip indexes
// costs ~20 ms of the engine whatever its size, then ~5 us a row, and an embedded engine runs one
// statement at a time: at 1000 spans a request, the fixed cost alone capped ingest near 40k spans/s.
// So one insert per table runs at a time; requests that arrive meanwhile wait for it and then go
// in together, as one insert. A lone request is inserted at once (no added latency); under load
// the groups grow by themselves.
//
// One request's rows must never fail another's, although a value the engine refuses fails the
// whole insert it is in. When the engine refuses a group, halves of it go in again until the
// requests it refuses are alone, and only those fail. While a set spans several projects it is
// halved by project (each project's requests stay together), and such sets are settled before any
// one project's own are split: every other project's requests are in after about 2 log2(projects)
// inserts per culprit project. One failed group costs at most MAX_ISOLATION_INSERTS more inserts
// (an engine refusing everything would otherwise cost two a request); what is unresolved then
// fails. A failure that is not the engine's refusal (storage unreachable, or no answer heard: the
// group may even be stored) fails the whole group at once: parts of it tried again could only add
// load, or store rows twice. Its requests fail fast, and their retries find what went in
// (write-batch.ts).

type Row = Record<string, unknown>;

/** The tables' own deduplication window (non_replicated_deduplication_window). */
const REMEMBERED_TOKENS = 10_000;
/** Inserts one failed group may cost beyond its own to find the requests the engine refuses. */
export const MAX_ISOLATION_INSERTS = 32;

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

  /** One insert of `group`'s rows: a lone request's under its token, a group's under one of its own. */
  async function insert(table: string, group: readonly Waiting[]): Promise<void> {
    const token = group.length === 1 ? group[0]!.token : groupToken(group);
    await ch.insert(table, group.length === 1 ? group[0]!.rows : group.flatMap((w) => w.rows), {
      ...(token ? { deduplicationToken: token } : {}),
    });
  }

  function stored(table: string, group: readonly Waiting[]): void {
    remember(table, group);
    for (const waiting of group) waiting.done();
  }

  function failed(group: readonly Waiting[], err: unknown): void {
    for (const waiting of group) waiting.done(err);
  }

  /** The engine refused `group` as one insert: finds, by halves, the requests it refuses. */
  async function isolate(table: string, group: Waiting[], err: unknown): Promise<void> {
    let budget = MAX_ISOLATION_INSERTS;
    /** Sets the engine refused, each with its error: first those spanning several projects. */
    const refused = [{ members: group, err }];
    while (refused.length > 0) {
      const mixed = refused.findIndex((set) => projectsOf(set.members).length > 1);
      const set = refused.splice(mixed === -1 ? refused.length - 1 : mixed, 1)[0]!;
      if (set.members.length === 1) {
        failed(set.members, set.err);
        continue;
      }
      const parts = halves(set.members);
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i]!;
        if (budget === 0) {
          failed(part, set.err);
          continue;
        }
        budget--;
        try {
          await insert(table, part);
          stored(table, part);
        } catch (partErr) {
          if (refusedByEngine(partErr)) {
            refused.push({ members: part, err: partErr });
            continue;
          }
          // Storage stopped answering: nothing more is learnt by trying the rest.
          for (const rest of [...parts.slice(i), ...refused.splice(0).map((r) => r.members)])
            failed(rest, partErr);
          return;
        }
      }
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
      try {
        await insert(table, group);
        stored(table, group);
      } catch (err) {
        if (group.length > 1 && refusedByEngine(err)) await isolate(table, group, err);
        else failed(group, err);
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

/** The project a request's rows belong to (every ingest table's rows carry it; '' when none do). */
const projectOf = (waiting: Waiting) => String(waiting.rows[0]?.project_id ?? '');

/** The projects of `members`, in the order they first appear. */
function projectsOf(members: readonly Waiting[]): string[] {
  return [...new Set(members.map(projectOf))];
}

/**
 * Two halves of a refused set: of its projects while it spans several (a project's requests stay
 * together), else of its requests.
 */
function halves(members: readonly Waiting[]): Waiting[][] {
  const projects = projectsOf(members);
  if (projects.length > 1) {
    const first = new Set(projects.slice(0, Math.ceil(projects.length / 2)));
    return [members.filter((w) => first.has(projectOf(w))), members.filter((w) => !first.has(projectOf(w)))];
  }
  const middle = Math.ceil(members.length / 2);
  return [members.slice(0, middle), members.slice(middle)];
}
