import type { AssistantConfig } from '../config';
import type { ConversationStore } from './conversations';
import { type AssistantDeps, runTurn, type TurnRequest } from './turn';

/** The console's assistant, when a model is configured. */
export interface Assistant {
  config: AssistantConfig;
  conversations: ConversationStore;
  /** Runs one turn, telling `req.emit` what happens; resolves when the turn has ended. */
  ask(req: TurnRequest): Promise<void>;
}

export function createAssistant(deps: AssistantDeps): Assistant {
  return { config: deps.config, conversations: deps.store, ask: (req) => runTurn(deps, req) };
}
