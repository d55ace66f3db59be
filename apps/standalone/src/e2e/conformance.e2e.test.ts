import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AuthProxy, startAuthProxy } from '../testing/auth-proxy';
import { RunError, runToEnd } from '../testing/run-to-end';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';

// The official MCP conformance suite against the gateway of a real stack. It needs Node 22 and
// sends no Authorization header, so it runs under `npx -p node@22` through a loopback proxy that
// adds the token (and passes Host/Origin unchanged). Scenarios that need test-only fixtures are
// in conformance-baseline.yml; everything else must pass.

const BASELINE = fileURLToPath(new URL('../../conformance-baseline.yml', import.meta.url));
const CONFORMANCE = '@modelcontextprotocol/conformance@0.1.16';
const GENERIC = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'tools-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

let stack: SpawnedStack;
let proxy: AuthProxy;

beforeAll(async () => {
  stack = await spawnStack({ env: { SVC_DEMO_SIZE: '0.1' } });
  proxy = await startAuthProxy(new URL(stack.ready.urls.gateway), stack.ready.token!);
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await proxy?.close();
  await stack?.dispose();
});

/**
 * Runs the suite to its end for as long as it progresses (runToEnd: `npx` fetching node@22 and the
 * suite on a loaded machine is slow, not stuck); its exit code and output, whatever the code.
 */
async function runConformance(url: string): Promise<{ code: number | null; output: string }> {
  const outDir = mkdtempSync(join(tmpdir(), 'conformance-'));
  const args = ['-y', '-p', 'node@22', '-p', CONFORMANCE, '--', 'conformance', 'server', '--url', url];
  try {
    const { stdout, stderr } = await runToEnd(
      'npx',
      [...args, '--expected-failures', BASELINE, '-o', outDir],
      { env: { ...process.env, npm_config_update_notifier: 'false' }, what: 'the MCP conformance suite' },
    );
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    if (err instanceof RunError) return { code: err.code, output: err.stdout + err.stderr };
    throw err;
  }
}

describe('MCP conformance suite', () => {
  it(
    'passes every generic scenario; only fixture scenarios are in the baseline',
    async () => {
      const { code, output } = await runConformance(`${proxy.url}/mcp`);
      const summary = output.slice(output.indexOf('=== SUMMARY ==='));
      for (const scenario of GENERIC) {
        expect(summary).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
      }
      if (code !== 0) throw new Error(`conformance exited ${code}:\n${output.slice(-4000)}`);
    },
    STACK_SETUP_TIMEOUT_MS,
  );
});
