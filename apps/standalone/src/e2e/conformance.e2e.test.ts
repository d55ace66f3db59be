import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AuthProxy, startAuthProxy } from '../testing/auth-proxy';
import { RunError, runToEnd } from '../testing/run-to-end';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';

// The official MCP conformance suite against the gateway of a real stack, once per protocol era:
// the scenarios each revision requires (`--requirements 2025-11-25`, `--requirements 2026-07-28`,
// frozen at its release). It needs Node 22 and sends no Authorization header, so it runs under
// `npx -p node@22` through a loopback proxy that adds the token (and passes Host/Origin
// unchanged). Scenarios that need test-only fixtures are in each era's baseline; everything else
// must pass. 0.2.0-alpha.12 is the newest release and the first with the 2026-07-28 requirements.

const CONFORMANCE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
interface Era {
  revision: string;
  baseline: string;
  /** Scenarios that must pass whole. */
  generic: string[];
  /** Scenarios in the baseline for some of their checks, with what those failures say: no other may fail. */
  partlyFixtures: Record<string, RegExp>;
}

const ERAS: Era[] = [
  {
    revision: '2025-11-25',
    baseline: fileURLToPath(new URL('../../conformance-baseline.yml', import.meta.url)),
    generic: [
      'server-initialize',
      'logging-set-level',
      'ping',
      'tools-list',
      'server-sse-multiple-streams',
      'dns-rebinding-protection',
      // The MCP Apps views are resources: listed like any.
      'resources-list',
      // The investigation guides.
      'prompts-list',
    ],
    partlyFixtures: {},
  },
  {
    revision: '2026-07-28',
    baseline: fileURLToPath(new URL('../../conformance-baseline-2026-07-28.yml', import.meta.url)),
    // http-header-validation: Mcp-Method/Mcp-Name required and checked against the body.
    generic: [
      'tools-list',
      'server-sse-multiple-streams',
      'dns-rebinding-protection',
      'http-header-validation',
      // The MCP Apps views: listed, and an unknown URI is -32602 with data.uri.
      'resources-list',
      'sep-2164-resource-not-found',
      // The investigation guides.
      'prompts-list',
    ],
    partlyFixtures: {
      // Exercised through diagnostic tools a server lists for the suite only.
      'server-stateless': /^Not testable: server does not list the diagnostic tool/,
      // The cache hints of a list this server does not have (resource templates).
      caching: /^resources\/templates\/list returned JSON-RPC error -32601/,
    },
  },
];

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** The checks of one scenario with the given statuses (from the suite's output directory). */
function checksOf(outDir: string, scenario: string, statuses: string[] = ['FAILURE']): Check[] {
  const dir = readdirSync(outDir).find((d) => d.startsWith(`server-${scenario}-2`));
  if (!dir) throw new Error(`no results for ${scenario}`);
  const checks = JSON.parse(readFileSync(join(outDir, dir, 'checks.json'), 'utf8')) as Check[];
  return checks.filter((c) => statuses.includes(c.status));
}

/**
 * What each scenario the suite calls an unexpected failure said. The suite counts a WARNING as a
 * failure against the baseline while its summary says "0 failed", so the summary alone does not
 * tell why it exited 1.
 */
function unexpectedFailures(output: string, outDir: string): string {
  const listed = output.slice(output.indexOf('Unexpected failures'));
  const names = [...listed.matchAll(/✗ ([\w-]+)/g)].map((m) => m[1]!);
  return [...new Set(names)]
    .map((scenario) => {
      const checks = checksOf(outDir, scenario, ['FAILURE', 'WARNING']);
      const said = checks.map((c) => `  ${c.status} ${c.id}: ${(c.errorMessage ?? '').slice(0, 800)}`);
      return [`${scenario}:`, ...said].join('\n');
    })
    .join('\n');
}

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
async function runConformance(
  url: string,
  revision: string,
  baseline: string,
): Promise<{ code: number | null; output: string; outDir: string }> {
  const outDir = mkdtempSync(join(tmpdir(), 'conformance-'));
  const args = ['-y', '-p', 'node@22', '-p', CONFORMANCE, '--', 'conformance', 'server', '--url', url];
  try {
    const { stdout, stderr } = await runToEnd(
      'npx',
      [...args, '--requirements', revision, '--expected-failures', baseline, '-o', outDir],
      { env: { ...process.env, npm_config_update_notifier: 'false' }, what: 'the MCP conformance suite' },
    );
    return { code: 0, output: stdout + stderr, outDir };
  } catch (err) {
    if (err instanceof RunError) return { code: err.code, output: err.stdout + err.stderr, outDir };
    throw err;
  }
}

describe('MCP conformance suite', () => {
  it.each(ERAS)(
    'passes every generic scenario of $revision; only fixture scenarios are in the baseline',
    async ({ revision, baseline, generic, partlyFixtures }) => {
      const { code, output, outDir } = await runConformance(`${proxy.url}/mcp`, revision, baseline);
      const summary = output.slice(output.indexOf('=== SUMMARY ==='));
      for (const scenario of generic) {
        expect(summary).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
      }
      for (const [scenario, fixtureOnly] of Object.entries(partlyFixtures)) {
        const failed = checksOf(outDir, scenario);
        expect(failed.filter((c) => !fixtureOnly.test(c.errorMessage ?? ''))).toEqual([]);
      }
      if (code !== 0)
        throw new Error(
          `conformance exited ${code}:\n${unexpectedFailures(output, outDir)}\n\n${output.slice(-3000)}`,
        );
    },
    STACK_SETUP_TIMEOUT_MS,
  );
});
