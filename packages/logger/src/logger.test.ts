import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Run in a child so the real stdout/stderr file descriptors are observed.
const entry = fileURLToPath(new URL('./logger.ts', import.meta.url));

function logIn(destination: 'stdout' | 'stderr') {
  const script = `import { createLogger } from ${JSON.stringify(entry)};
    const log = createLogger({ name: 't', destination: '${destination}' });
    log.info({ token: 'svc_pat_secret', headers: { authorization: 'Bearer svc_pat_secret' }, n: 1 }, 'hello');`;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
}

describe('createLogger', () => {
  it('writes JSON lines to stderr only when asked (the stdio server keeps stdout for MCP)', () => {
    const r = logIn('stderr');
    expect(r.stdout).toBe('');
    const line = JSON.parse(r.stderr.trim());
    expect(line).toMatchObject({ name: 't', msg: 'hello', n: 1, level: 30 });
  });

  it('redacts tokens and authorization headers', () => {
    const r = logIn('stdout');
    expect(r.stdout).not.toContain('svc_pat_secret');
    const line = JSON.parse(r.stdout.trim());
    expect(line.token).toBe('[redacted]');
    expect(line.headers.authorization).toBe('[redacted]');
  });

  it('adds the mixin fields to every line (self-tracing: the active span ids)', () => {
    const script = `import { createLogger } from ${JSON.stringify(entry)};
      let n = 0;
      const log = createLogger({ name: 't', mixin: () => (++n === 1 ? { trace_id: 'abc', span_id: 'def' } : {}) });
      log.info('inside');
      log.info('outside');`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    const [inside, outside] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(inside).toMatchObject({ msg: 'inside', trace_id: 'abc', span_id: 'def' });
    expect(outside.trace_id).toBeUndefined();
  });
});
