import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// Test-only: an HTTP proxy in front of identity that can fail the way networks fail, for one
// gateway at a time.
// - pass: forwards everything;
// - cut-channel: the invalidation stream and its acknowledgements fail (connections dropped);
//   introspection still passes;
// - blackhole: nothing gets through and nothing is answered, open streams stall without closing
//   (a partition); back to pass, stalled streams resume.

export type FaultMode = 'pass' | 'cut-channel' | 'blackhole';

export interface FaultProxy {
  url: string;
  setMode(mode: FaultMode): void;
  /** Introspection requests forwarded so far. */
  introspections(): number;
  close(): Promise<void>;
}

export async function startFaultProxy(target: () => string): Promise<FaultProxy> {
  let mode: FaultMode = 'pass';
  let introspections = 0;
  const streams = new Set<{ up: IncomingMessage; res: ServerResponse; req: IncomingMessage }>();
  const held = new Set<ServerResponse>();
  const isChannel = (url: string | undefined) => url?.startsWith('/internal/v1/invalidations') ?? false;

  const server = createServer((req, res) => {
    if (mode === 'blackhole') {
      held.add(res);
      res.on('close', () => held.delete(res));
      return;
    }
    if (mode === 'cut-channel' && isChannel(req.url)) {
      req.socket.destroy();
      return;
    }
    if (req.url === '/internal/v1/introspect') introspections++;
    const up = request(`${target()}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      if (isChannel(req.url)) {
        const stream = { up: answer, res, req };
        streams.add(stream);
        res.on('close', () => {
          streams.delete(stream);
          answer.destroy();
        });
        answer.on('end', () => streams.delete(stream));
      }
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setMode(next) {
      mode = next;
      for (const s of streams) {
        if (next === 'cut-channel') s.res.destroy();
        else if (next === 'blackhole') {
          s.up.unpipe(s.res);
          s.up.pause();
        } else {
          s.up.pipe(s.res);
          s.up.resume();
        }
      }
      if (next !== 'blackhole') for (const res of held) res.destroy();
    },
    introspections: () => introspections,
    async close() {
      for (const s of streams) s.res.destroy();
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
