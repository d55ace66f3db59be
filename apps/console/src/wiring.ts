import type { Logger } from '@svc/tool-kit';
import type { Express } from 'express';
import { createConsoleApp } from './app';
import { createAssistant } from './assistant/assistant';
import { conversationStore } from './assistant/conversations';
import type { ConsoleConfig } from './config';
import { createIdentityApi } from './identity-api';
import { createRecallApi } from './recall-api';
import { sessionCookies } from './session';
import { createToolCaller } from './tool-calls';

/** Whether a listen address takes loopback connections (a wildcard one does too). */
export const servesLoopback = (host: string): boolean =>
  ['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::'].includes(host) || host.startsWith('127.');

/** The console app from its config: identity, a gateway and (when deployed) recall over HTTP. */
export function wireConsole(config: ConsoleConfig, deps: { logger: Logger; now?: () => Date }): Express {
  const identity = createIdentityApi({
    identityUrl: config.identityUrl,
    internalSecret: config.internalSecret,
  });
  const now = deps.now ?? (() => new Date());
  const assistant =
    config.assistant &&
    createAssistant({
      config: config.assistant,
      identity,
      mcpUrl: `${config.gatewayUrl}/mcp`,
      store: conversationStore(config.assistant.database),
      logger: deps.logger.child({ part: 'assistant' }),
      now,
    });
  return createConsoleApp({
    config,
    identity,
    ...(assistant ? { assistant } : {}),
    tools: createToolCaller({ gatewayUrl: config.gatewayUrl, identity }),
    recall: config.recallUrl ? createRecallApi({ recallUrl: config.recallUrl }) : undefined,
    cookies: sessionCookies({
      publicUrl: config.publicUrl,
      internalSecret: config.internalSecret,
      ...(servesLoopback(config.host) ? { loopbackPort: config.port } : {}),
    }),
    logger: deps.logger,
    now,
  });
}
