import type { Logger } from '@svc/tool-kit';
import type { Assistant } from './assistant/assistant';
import type { ConsoleConfig } from './config';
import type { IdentityApi } from './identity-api';
import type { RecallApi } from './recall-api';
import type { SessionCookies } from './session';
import type { ToolCaller } from './tool-calls';

/** What the console's routes are given: its configuration and the services it talks to. */
export interface ConsoleDeps {
  config: Pick<ConsoleConfig, 'gatewayPublicUrl' | 'publicUrl' | 'trustedProxies'>;
  identity: IdentityApi;
  tools: ToolCaller;
  /** Recall's console side; undefined when recall is not deployed. */
  recall: RecallApi | undefined;
  /** The assistant; undefined while no model is configured (its page says how to configure one). */
  assistant?: Assistant;
  cookies: SessionCookies;
  logger: Logger;
  now: () => Date;
  /** Where console.css and console.js are (default: the app's static/ directory). */
  staticDir?: string;
}
