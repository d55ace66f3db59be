import type { BackendToolCaller, CallActor } from '@svc/tool-kit';
import type { EvidenceStep } from '@svc/tools-verify';

export interface CallScope {
  projectId: string;
  requestId: string;
  actor: CallActor;
  signal: AbortSignal;
}

/**
 * Whether the caller's org may read traces (vis_trace): only then do spans serve as evidence. An
 * actor that names no capabilities has none (fail closed).
 */
export const canReadTraces = (scope: CallScope): boolean =>
  scope.actor.capabilities?.includes('vis_trace') ?? false;

/** One of the core's tools, called for the caller of this verification. */
export function callCore(
  core: BackendToolCaller,
  scope: CallScope,
  tool: string,
  parameters: Record<string, unknown>,
): Promise<unknown> {
  return core.callTool(scope.projectId, tool, parameters, {
    requestId: scope.requestId,
    actor: scope.actor,
    signal: scope.signal,
  });
}

/**
 * The evidence chain of one verification: every tool call the checker makes goes through `ask`,
 * which records the tool, its parameters and what the answer showed, in order. A step is recorded
 * only once its answer is in, so the chain never names a call whose answer it did not see.
 */
export class Evidence {
  readonly steps: EvidenceStep[] = [];

  constructor(
    private readonly core: BackendToolCaller,
    private readonly scope: CallScope,
  ) {}

  async ask<T>(
    tool: string,
    parameters: Record<string, unknown>,
    observe: (answer: T) => string,
  ): Promise<T> {
    const answer = (await callCore(this.core, this.scope, tool, parameters)) as T;
    this.steps.push({ step: this.steps.length + 1, tool, parameters, observed: observe(answer) });
    return answer;
  }
}
