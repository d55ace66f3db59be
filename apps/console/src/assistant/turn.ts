import type { Logger } from '@svc/tool-kit';
import { type ModelMessage, stepCountIs, streamText } from 'ai';
import type { AssistantConfig } from '../config';
import type { IdentityApi } from '../identity-api';
import type { ConversationStore, Owner } from './conversations';
import { type GatewayTools, openGatewayTools, type ToolStep } from './gateway-tools';
import { turnModel } from './provider';
import { providerErrorMessage } from './provider-errors';
import { systemPrompt } from './system-prompt';
import { TurnBudget } from './turn-budget';

/** What the page is told while a turn runs, in order. */
export type TurnEvent =
  | { type: 'text'; text: string }
  | { type: 'step'; step: ToolStep }
  | { type: 'error'; message: string }
  | { type: 'stopped' }
  | { type: 'done'; conversationId: string; answer: string; steps: ToolStep[] };

export interface TurnRequest {
  owner: Owner;
  /** The console session: the assistant's token is minted for its person. */
  session: string;
  projectName: string;
  conversationId: string | undefined;
  question: string;
  /** Earlier turns of the conversation (their questions and answers; tool results are not resent). */
  history: { question: string; answer: string }[];
  /** Stop: cancels the model call and every tool call in flight. */
  signal: AbortSignal;
  emit: (event: TurnEvent) => void;
}

export interface AssistantDeps {
  config: AssistantConfig;
  identity: IdentityApi;
  /** The gateway's MCP endpoint as the console reaches it. */
  mcpUrl: string;
  store: ConversationStore;
  logger: Logger;
  now: () => Date;
}

/** Room for the steps that call tools plus the one that answers (and one to spare). */
const ANSWER_STEPS = 2;

async function connect(
  deps: AssistantDeps,
  req: TurnRequest,
  budget: TurnBudget,
  steps: Map<number, ToolStep>,
) {
  const { token } = await deps.identity.assistantToken(req.session, req.owner.projectId);
  return openGatewayTools({
    mcpUrl: deps.mcpUrl,
    token,
    budget,
    onStep: (step) => {
      steps.set(step.n, step);
      req.emit({ type: 'step', step });
    },
  });
}

/**
 * One turn: the model streams its answer and calls the gateway's read tools as it goes; the
 * page gets each token and tool step as it happens. Only a complete answer is saved.
 */
export async function runTurn(deps: AssistantDeps, req: TurnRequest): Promise<void> {
  const budget = new TurnBudget(deps.config.maxToolCalls, deps.config.maxResultChars);
  const steps = new Map<number, ToolStep>();
  let gateway: GatewayTools;
  try {
    gateway = await connect(deps, req, budget, steps);
  } catch (err) {
    if (req.signal.aborted) return req.emit({ type: 'stopped' });
    deps.logger.warn({ err }, 'assistant: the gateway could not be opened');
    return req.emit({
      type: 'error',
      message: 'The assistant could not reach the tools (the gateway). Try again.',
    });
  }
  const model = turnModel(deps.config);
  let answer = '';
  let failure: unknown;
  try {
    const messages: ModelMessage[] = [
      ...req.history.flatMap((t): ModelMessage[] => [
        { role: 'user', content: t.question },
        { role: 'assistant', content: t.answer },
      ]),
      { role: 'user', content: req.question },
    ];
    const result = streamText({
      model: model.model,
      system: systemPrompt({
        projectName: req.projectName,
        projectId: req.owner.projectId,
        groups: gateway.groups,
        serverAdvice: gateway.serverAdvice,
        now: deps.now(),
      }),
      messages,
      tools: gateway.tools,
      stopWhen: stepCountIs(deps.config.maxToolCalls + ANSWER_STEPS),
      abortSignal: req.signal,
      // A rate limit or an outage is the person's to see (with its Retry-After), not to sit through.
      maxRetries: 0,
      // Failures arrive as the stream's error parts (read below), not as logs of the SDK's own.
      onError: () => {},
    });
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') {
        answer += part.text;
        req.emit({ type: 'text', text: part.text });
      } else if (part.type === 'error') {
        failure = part.error;
      }
    }
  } catch (err) {
    failure = err;
  } finally {
    await gateway.close().catch(() => {});
  }
  if (req.signal.aborted) return req.emit({ type: 'stopped' });
  if (failure !== undefined) {
    deps.logger.warn({ err: failure }, 'assistant: the model call failed');
    return req.emit({
      type: 'error',
      message: providerErrorMessage(failure, {
        timedOut: model.timedOut(),
        timeoutMs: deps.config.timeoutMs,
        model: deps.config.model,
        now: deps.now().getTime(),
      }),
    });
  }
  const kept = [...steps.values()];
  let conversationId: string;
  try {
    // One transaction: the turn is kept whole or not at all.
    conversationId = await deps.store.saveTurn(
      req.owner,
      req.conversationId,
      { question: req.question, answer, steps: kept },
      deps.now(),
    );
  } catch (err) {
    deps.logger.error({ err }, 'assistant: the conversation store failed');
    return req.emit({
      type: 'error',
      message: 'The answer could not be kept (the console’s store failed). Try again.',
    });
  }
  req.emit({ type: 'done', conversationId, answer, steps: kept });
}
