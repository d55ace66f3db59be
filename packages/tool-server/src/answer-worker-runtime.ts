import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { AnyTool } from '@svc/tool-kit';
import { checkAnswerBytes } from './answer-check';

/** A job from the pool: the answer's bytes (transferred) and the tool whose schema they must pass. */
export interface AnswerJob {
  id: number;
  tool: string;
  bytes: Uint8Array;
}

/** The worker's reply: the checked result as UTF-8 JSON (transferred), or why it failed. */
export type AnswerReply =
  | { id: number; ok: true; json: Uint8Array }
  | { id: number; ok: false; reason: 'invalid_json' | 'invalid_output' | 'unknown_tool'; issues?: unknown[] };

/** Sent once the worker listens: the tools it can check (the pool sends it no others). */
export interface WorkerReady {
  ready: true;
  tools: string[];
}

export interface AnswerWorkerData {
  /** Linux nice value for this thread; 0 leaves it at the process's. */
  niceness: number;
}

const encoder = new TextEncoder();

/**
 * The body of an answer worker (answer-workers.ts): an app's worker module calls this with the same
 * tools its registry holds. Each job is parsed, checked against the tool's output schema and
 * serialized again (the schema's output, as inline), and the JSON bytes go back without a copy.
 */
export function serveAnswerChecks(tools: readonly AnyTool[]): void {
  const port = parentPort;
  if (!port) throw new Error('serveAnswerChecks runs in a worker thread');
  const { niceness } = (workerData ?? { niceness: 0 }) as AnswerWorkerData;
  // On Linux a thread has its own nice value, so this lowers this worker only: the event loop
  // that answers everybody's small calls wins the CPU over a large answer's parsing. Elsewhere
  // it would lower the whole process, so it is not done there.
  if (niceness > 0 && process.platform === 'linux') {
    try {
      setPriority(niceness);
    } catch {
      // Not allowed here: the worker still works, at the process's priority.
    }
  }
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  port.on('message', (job: AnswerJob) => {
    const tool = byName.get(job.tool);
    if (!tool) {
      port.postMessage({ id: job.id, ok: false, reason: 'unknown_tool' } satisfies AnswerReply);
      return;
    }
    const checked = checkAnswerBytes(tool, job.bytes);
    if (!checked.ok) {
      port.postMessage({ id: job.id, ...checked } satisfies AnswerReply);
      return;
    }
    const json = encoder.encode(JSON.stringify(checked.value));
    port.postMessage({ id: job.id, ok: true, json } satisfies AnswerReply, [json.buffer]);
  });
  port.postMessage({ ready: true, tools: [...byName.keys()] } satisfies WorkerReady);
}
