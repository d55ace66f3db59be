import { userInfo } from 'node:os';
import { runService } from '@svc/config';
import { loadStdioConfig } from './config';

// stdout carries MCP messages only: every diagnostic goes to stderr.
await runService({
  name: 'stdio-server',
  load: loadStdioConfig,
  refusal: { say: (message) => `stdio-server refuses to start.\n${message}`, exitCode: 2 },
  async wire(config) {
    // Loaded only once the configuration is accepted: a refusal touches nothing else.
    const { wireStdio } = await import('./wiring');
    const wired = await wireStdio(config, { localUser: `local:${userInfo().username}` });
    return {
      logger: wired.logger,
      listeners: [],
      started: () => {
        // Both eras over the process's stdio: the client's opening message decides (app.ts).
        wired.app.serve();
        wired.logger.info(
          { project_id: config.projectId, org_id: config.orgId ?? null },
          'stdio server ready',
        );
      },
      close: () => wired.close(),
    };
  },
  stopWhen: (stop) => void process.stdin.once('end', () => stop('stdin ended')),
});
