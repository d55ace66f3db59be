import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The core's folders import one way. Ingest runs in stages, each a folder of its own (json/,
// otlp/, validate/, store/, replay/) standing on what ingest/ itself holds (the format, the field
// rules, the limits); symbolication is a stage ingest calls, so it never imports ingest. A folder
// that imports one which imports it back (a circle) is refused here, naming the files that tie it.

const SRC = fileURLToPath(new URL('..', import.meta.url));

/** Shipped source: every .ts file but tests and test support. */
function shipped(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : shipped(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** A file's room: `ingest/<stage>` in ingest, else its folder under src/ (a file of src/ itself: the file). */
function roomOf(file: string): string {
  const [top, second, ...rest] = relative(SRC, file).split('/');
  if (second === undefined) return top!;
  return top === 'ingest' && rest.length > 0 ? `ingest/${second}` : top!;
}

const SPECIFIER = /^\s*(?:import|export)\b[^'"]*?from\s*'(\.{1,2}\/[^']+)'/gm;

/** room -> room it imports -> a file that does, and the file it imports. */
function roomGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of shipped(SRC)) {
    const from = roomOf(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const target = resolve(dirname(file), specifier!);
      const to = roomOf(`${target}.ts`);
      if (to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string>();
      if (!edges.has(to)) edges.set(to, `${relative(SRC, file)} -> ${specifier}`);
      graph.set(from, edges);
    }
  }
  return graph;
}

/** A way from `room` back to itself, as the ties that make it (breadth first: a shortest one), if any. */
function wayBack(graph: Map<string, Map<string, string>>, room: string): string[] | undefined {
  const cameFrom = new Map<string, string>();
  const queue = [room];
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const next of graph.get(at)?.keys() ?? []) {
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, at);
      if (next === room) {
        const ties: string[] = [];
        for (let to = room, from = at; ; to = from, from = cameFrom.get(from)!) {
          ties.unshift(`${from} -> ${to}: ${graph.get(from)!.get(to)}`);
          if (from === room) return ties;
        }
      }
      queue.push(next);
    }
  }
  return undefined;
}

test('the stages of ingest are folders of their own', () => {
  const rooms = new Set(shipped(SRC).map(roomOf));
  for (const stage of ['ingest/json', 'ingest/otlp', 'ingest/validate', 'ingest/store', 'ingest/replay'])
    expect(rooms).toContain(stage);
});

test('no circle through ingest or symbolication (each stage of ingest a folder)', () => {
  const graph = roomGraph();
  const rooms = [...graph.keys()].filter((room) => room.startsWith('ingest') || room === 'symbolication');
  expect(rooms.flatMap((room) => wayBack(graph, room) ?? [])).toEqual([]);
});

test('symbolication, a stage ingest calls, imports nothing of ingest', () => {
  const graph = roomGraph();
  expect([...(graph.get('symbolication')?.keys() ?? [])].filter((room) => room.startsWith('ingest'))).toEqual(
    [],
  );
});
