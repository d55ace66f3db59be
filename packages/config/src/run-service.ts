import { createServer, type RequestListener, type Server } from 'node:http';
import { ConfigError } from './parse-env';
import { withServerTimeouts } from './server-timeouts';

type Env = Record<string, string | undefined>;

/** What runService writes to a service's log (a pino logger is one). */
export interface ServiceLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** One HTTP app served on its own port; the log says "<what> listening" with `fields`. */
export interface ServiceListener {
  what: string;
  app: RequestListener;
  host: string;
  port: number;
  fields?: Record<string, unknown>;
}

/** A wired service: what to listen on, and what to do once started and when stopping. */
export interface WiredService {
  logger: ServiceLog;
  listeners: ServiceListener[];
  /** Once every listener listens: monitors, a transport that is not HTTP (stdio). */
  started?: () => void;
  /**
   * On the first stop, while the servers still listen: what would keep them from closing (open
   * streams) ends, and what must still reach a listening server (the last self-traced spans) goes.
   */
  drain?: () => Promise<void>;
  /** After the servers closed: stores, clients, timers. */
  close?: () => Promise<void>;
}

export interface ServiceDefinition<C> {
  /** The process's name in the messages it prints when it cannot start. */
  name: string;
  load: (env: Env) => C;
  wire: (config: C) => WiredService | Promise<WiredService>;
  /**
   * How a refusal is said: a ConfigError (or an error `also` names, while loading or wiring) is an
   * expected end, one message and no stack trace. By default its own message and exit 1; the stdio
   * server puts a first line of its own before it and exits 2.
   */
  refusal?: {
    say?: (message: string) => string;
    exitCode?: number;
    also?: (err: unknown) => boolean;
  };
  /** How any other failure to start is said (default: "<name> failed to start: <stack>"). */
  failed?: (detail: string) => string;
  /** Causes to stop besides SIGINT and SIGTERM (the stdio server: its input ended). */
  stopWhen?: (stop: (reason: string) => void) => void;
}

/** The process as runService uses it; tests pass their own. */
export interface ServiceProcess {
  env: Env;
  exit(code: number): void;
  writeError(text: string): void;
  onSignal(signal: 'SIGINT' | 'SIGTERM', handler: () => void): void;
}

const realProcess: ServiceProcess = {
  env: process.env,
  exit: (code) => process.exit(code),
  writeError: (text) => void process.stderr.write(text),
  onSignal: (signal, handler) => void process.on(signal, handler),
};

/**
 * Every service's start, one way: load the configuration (a refusal is one clear message and a
 * non-zero exit, never a stack trace), wire, listen, and stop cleanly on the first SIGINT or SIGTERM
 * (later ones are ignored while it stops: Ctrl-C often arrives twice, from the terminal and pnpm).
 */
export async function runService<C>(
  definition: ServiceDefinition<C>,
  proc: ServiceProcess = realProcess,
): Promise<void> {
  let wired: WiredService;
  const servers: Server[] = [];
  try {
    wired = await definition.wire(definition.load(proc.env));
    for (const listener of wired.listeners) servers.push(await listen(listener, wired.logger));
    wired.started?.();
  } catch (err) {
    const { refusal, failed } = definition;
    if (err instanceof ConfigError || refusal?.also?.(err)) {
      const message = (err as Error).message;
      proc.writeError(`${refusal?.say ? refusal.say(message) : message}\n`);
      proc.exit(refusal?.exitCode ?? 1);
    } else {
      const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
      proc.writeError(`${failed ? failed(detail) : `${definition.name} failed to start: ${detail}`}\n`);
      proc.exit(1);
    }
    return;
  }
  const stop = stopOnce(wired, servers, proc);
  proc.onSignal('SIGINT', () => stop('SIGINT'));
  proc.onSignal('SIGTERM', () => stop('SIGTERM'));
  definition.stopWhen?.(stop);
}

function listen(listener: ServiceListener, logger: ServiceLog): Promise<Server> {
  const server = withServerTimeouts(createServer(listener.app));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listener.port, listener.host, () => {
      server.off('error', reject);
      logger.info(
        { host: listener.host, port: listener.port, ...listener.fields },
        `${listener.what} listening`,
      );
      resolve(server);
    });
  });
}

function stopOnce(wired: WiredService, servers: Server[], proc: ServiceProcess): (reason: string) => void {
  let stopping = false;
  return (reason) => {
    if (stopping) return;
    stopping = true;
    wired.logger.info({ signal: reason }, 'shutting down');
    void (async () => {
      try {
        await wired.drain?.();
        await Promise.all(servers.map((s) => new Promise((closed) => s.close(closed))));
        await wired.close?.();
      } catch (err) {
        wired.logger.error({ err }, 'stopping failed');
      } finally {
        proc.exit(0);
      }
    })();
  };
}
