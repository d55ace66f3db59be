import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { parseEnv } from './parse-env';
import { runService, type ServiceLog, type ServiceProcess } from './run-service';

/** A process that records what runService does to it instead of doing it. */
function fakeProcess(env: Record<string, string> = {}) {
  const handlers = new Map<string, () => void>();
  let exited: (code: number) => void = () => {};
  const proc = {
    stderr: '',
    exitCode: new Promise<number>((resolve) => (exited = resolve)),
    signal: (name: string) => handlers.get(name)?.(),
    process: {
      env,
      exit: (code: number) => exited(code),
      writeError: (text: string) => {
        proc.stderr += text;
      },
      onSignal: (signal: string, handler: () => void) => void handlers.set(signal, handler),
    } satisfies ServiceProcess,
  };
  return proc;
}

const schema = z.object({ PORT: z.coerce.number().int() });
const load = (env: Record<string, string | undefined>) => parseEnv('demo', schema, env);

function recordingLog(lines: string[]): ServiceLog {
  return { info: (_f, m) => void lines.push(m), error: (_f, m) => void lines.push(`error: ${m}`) };
}

describe('runService', () => {
  it('refuses a bad configuration with its message and exit 1, before wiring anything', async () => {
    const proc = fakeProcess({ PORT: 'x' });
    let wired = false;
    const wire = () => {
      wired = true;
      return { logger: recordingLog([]), listeners: [] };
    };
    await runService({ name: 'demo', load, wire }, proc.process);
    expect(await proc.exitCode).toBe(1);
    expect(proc.stderr).toContain('demo: invalid configuration');
    expect(proc.stderr).toContain('PORT');
    expect(proc.stderr).not.toMatch(/\n\s+at /);
    expect(wired).toBe(false);
  });

  it("says a refusal in the service's own words and exit code when it has them", async () => {
    const proc = fakeProcess({});
    await runService(
      {
        name: 'demo',
        load,
        wire: () => ({ logger: recordingLog([]), listeners: [] }),
        refusal: { say: (m) => `demo refuses to start.\n${m}`, exitCode: 2 },
      },
      proc.process,
    );
    expect(await proc.exitCode).toBe(2);
    expect(proc.stderr.startsWith('demo refuses to start.\ndemo: invalid configuration')).toBe(true);
  });

  it('says other expected ends the same way, and any other failure in its own words', async () => {
    class Busy extends Error {}
    const definition = (thrown: Error) => ({
      name: 'demo',
      load,
      wire: (): never => {
        throw thrown;
      },
      refusal: { say: (m: string) => `demo: ${m}`, also: (err: unknown) => err instanceof Busy },
      failed: (detail: string) => `demo failed: ${detail}`,
    });
    const busy = fakeProcess({ PORT: '0' });
    await runService(definition(new Busy('another instance holds the data dir')), busy.process);
    expect(await busy.exitCode).toBe(1);
    expect(busy.stderr).toBe('demo: another instance holds the data dir\n');

    const broken = fakeProcess({ PORT: '0' });
    await runService(definition(new Error('disk full')), broken.process);
    expect(await broken.exitCode).toBe(1);
    expect(broken.stderr).toMatch(/^demo failed: Error: disk full\n\s+at /);
  });

  it('exits 1 naming the service when wiring or listening fails', async () => {
    const proc = fakeProcess({ PORT: '0' });
    await runService(
      {
        name: 'demo',
        load,
        wire: () => {
          throw new Error('store unreachable');
        },
      },
      proc.process,
    );
    expect(await proc.exitCode).toBe(1);
    expect(proc.stderr).toContain('demo failed to start: Error: store unreachable');

    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    const second = fakeProcess({ PORT: String(port) });
    await runService(
      {
        name: 'demo',
        load,
        wire: (config) => ({
          logger: recordingLog([]),
          listeners: [{ what: 'demo', app: () => {}, host: '127.0.0.1', port: config.PORT }],
        }),
      },
      second.process,
    );
    expect(await second.exitCode).toBe(1);
    expect(second.stderr).toContain('EADDRINUSE');
    await new Promise((resolve) => busy.close(resolve));
  });

  it('listens, then on the first signal drains, closes the servers, closes the rest and exits 0', async () => {
    const proc = fakeProcess({ PORT: '0' });
    const lines: string[] = [];
    const answer = (_req: unknown, res: { end(body: string): void }) => res.end('ok');
    await runService(
      {
        name: 'demo',
        load,
        wire: () => ({
          logger: recordingLog(lines),
          listeners: [
            { what: 'demo', app: answer, host: '127.0.0.1', port: 0 },
            { what: 'metrics', app: answer, host: '127.0.0.1', port: 0 },
          ],
          started: () => lines.push('started'),
          drain: async () => void lines.push('drain'),
          close: async () => void lines.push('close'),
        }),
      },
      proc.process,
    );
    expect(lines).toEqual(['demo listening', 'metrics listening', 'started']);
    proc.signal('SIGTERM');
    proc.signal('SIGINT');
    expect(await proc.exitCode).toBe(0);
    expect(lines.slice(3)).toEqual(['shutting down', 'drain', 'close']);
  });

  it('stops on a cause the service names (the stdio server: its input ended)', async () => {
    const proc = fakeProcess({ PORT: '0' });
    const lines: string[] = [];
    let inputEnded: (reason: string) => void = () => {};
    await runService(
      {
        name: 'demo',
        load,
        wire: () => ({
          logger: recordingLog(lines),
          listeners: [],
          close: async () => void lines.push('close'),
        }),
        stopWhen: (stop) => (inputEnded = stop),
      },
      proc.process,
    );
    inputEnded('stdin ended');
    expect(await proc.exitCode).toBe(0);
    expect(lines).toEqual(['shutting down', 'close']);
  });
});
