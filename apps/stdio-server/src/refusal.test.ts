import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The real entry point, spawned: it must refuse before touching stdout (MCP only) or the network.
const main = fileURLToPath(new URL('./main.ts', import.meta.url));
/** A ceiling, not an expectation: a loaded machine starts tsx slowly (jest's is 300 s). */
const PROCESS_CEILING_MS = 240_000;
const base = { PATH: process.env.PATH ?? '', SVC_INTERNAL_SECRET: 'x'.repeat(32) };

function run(env: Record<string, string>) {
  return spawnSync(process.execPath, ['--import', 'tsx', main], {
    env: { ...base, ...env },
    encoding: 'utf8',
    timeout: PROCESS_CEILING_MS,
    input: '',
  });
}

describe('stdio-server refusal matrix (spawned process)', () => {
  it.each([
    ['nothing set', {}],
    ['TRUSTED_LOCAL=true', { SVC_MCP_STDIO_TRUSTED_LOCAL: 'true', SVC_MCP_PROJECT_ID: 'p' }],
    ['TRUSTED_LOCAL=0', { SVC_MCP_STDIO_TRUSTED_LOCAL: '0', SVC_MCP_PROJECT_ID: 'p' }],
    ['no project', { SVC_MCP_STDIO_TRUSTED_LOCAL: '1' }],
    ['empty project', { SVC_MCP_STDIO_TRUSTED_LOCAL: '1', SVC_MCP_PROJECT_ID: '' }],
  ])('refuses with %s: non-zero exit, reason on stderr, nothing on stdout', (_label, env) => {
    const result = run(env as Record<string, string>);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('stdio-server refuses to start');
    expect(result.stderr).toMatch(/SVC_MCP_STDIO_TRUSTED_LOCAL|SVC_MCP_PROJECT_ID/);
    expect(result.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });
});
