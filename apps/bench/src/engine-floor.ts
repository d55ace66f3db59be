import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface EngineFloorTask {
  tools: { tool: string; args: Record<string, unknown> }[];
  /** The demo project the call-cost suite ingests (iterateDemoBatches options, less `now`). */
  seed: { size: number; seed: number; days: number };
  turnMs: number;
  rounds: number;
}

export interface EngineFloorTurn {
  calls: number;
  cpuUsPerCall: number;
  rps: number;
}

export interface EngineFloorLayer {
  tool: string;
  layer: string;
  /** Queries one call of the tool makes. */
  queries: number;
  turns: EngineFloorTurn[];
}

export interface EngineFloorReport {
  layers: EngineFloorLayer[];
  /** Callers at once (the core's chDB sessions). */
  concurrency: number;
}

/** Runs engine-floor-process.ts and answers its report. */
export function runEngineFloor(task: EngineFloorTask): Promise<EngineFloorReport> {
  const child = fork(fileURLToPath(new URL('./engine-floor-process.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'warn' },
  });
  return new Promise((resolve, reject) => {
    child.once('message', (report) => resolve(report as EngineFloorReport));
    child.once('exit', (code) => reject(new Error(`engine floor process exited with ${code}`)));
    child.send(task);
  });
}
