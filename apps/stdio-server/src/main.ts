import { userInfo } from 'node:os';
import { ConfigError } from '@svc/config';
import { loadStdioConfig } from './config';

// stdout carries MCP messages only: every diagnostic goes to stderr.
let config: ReturnType<typeof loadStdioConfig>;
try {
  config = loadStdioConfig(process.env);
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`stdio-server refuses to start.\n${err.message}\n`);
    process.exit(2);
  }
  throw err;
}

const { wireStdio } = await import('./wiring');
const wired = await wireStdio(config, { localUser: `local:${userInfo().username}` });
// Both eras over the process's stdio: the client's opening message decides (app.ts).
wired.app.serve();
wired.logger.info(
  { project_id: config.SVC_MCP_PROJECT_ID, org_id: config.SVC_MCP_ORG_ID ?? null },
  'stdio server ready',
);

let stopping = false;
async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await wired.close();
  process.exit(0);
}
process.stdin.once('end', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
