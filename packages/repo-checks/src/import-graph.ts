import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { read } from './repository';

// Test-only: who imports whom, read with TypeScript's own scanner (comments and strings are not
// imports; `import type`, re-exports and `import()` are).

/** The module specifiers `path` imports or re-exports, as written. */
export function specifiersOf(path: string): string[] {
  return ts.preProcessFile(read(path), true, true).importedFiles.map((f) => f.fileName);
}

const ENDINGS = ['', '.ts', '.tsx', '.mts', '.mjs', '/index.ts', '/index.tsx'];

/** The file of `files` a relative specifier in `from` names (`./x` -> x.ts, x.tsx, x/index.ts). */
export function resolveRelative(
  from: string,
  specifier: string,
  files: ReadonlySet<string>,
): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = normalize(join(dirname(from), specifier));
  // An ESM-style `./x.js` names x.ts.
  const stems = /\.m?js$/.test(base)
    ? [base, base.replace(/\.(m?)js$/, '.$1ts'), base.replace(/\.js$/, '.tsx')]
    : [base];
  for (const stem of stems) {
    for (const ending of ENDINGS) if (files.has(stem + ending)) return stem + ending;
  }
  return undefined;
}

/** A directed graph: each node and the nodes it points at. */
export type Graph = Map<string, Set<string>>;

/** The strongly connected parts of `graph` that hold a cycle (Tarjan), each sorted, in node order. */
export function circles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      part.push(member);
    } while (member !== node);
    if (part.length > 1 || graph.get(node)?.has(node)) found.push(part.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/** One shortest way round a circle, from its first node back to it: `[a, b, c, a]`. */
export function wayRound(graph: Graph, circle: readonly string[]): string[] {
  const inside = new Set(circle);
  const start = circle[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!inside.has(next)) continue;
      if (next === start) {
        const way = [node];
        while (way[0] !== start) way.unshift(cameFrom.get(way[0]!)!);
        return [...way, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start];
}
