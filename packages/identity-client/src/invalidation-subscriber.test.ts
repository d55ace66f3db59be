import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import type { Logger } from '@svc/tool-kit';
import type { InvalidationEvent } from './invalidation-events';
import { PERSISTENT_FAILURES } from './invalidation-lease';
import { createInvalidationSubscriber } from './invalidation-subscriber';

// The subscriber against a scripted identity (real HTTP on loopback), for the cases a real
// identity does not produce on demand: a lost event, a stream that goes silent, a refused lease.

interface Script {
  streams: ServerResponse[];
  acks: { subscriber_id: string; seq: number }[];
  ackStatus: number;
  /** Acknowledgements cut off without an answer (a connection error at the subscriber). */
  dropAcks: boolean;
  subscriptions: number;
}

async function fakeIdentity() {
  const script: Script = { streams: [], acks: [], ackStatus: 200, dropAcks: false, subscriptions: 0 };
  const server = createServer((req, res) => {
    if (req.url === '/internal/v1/invalidations') {
      script.subscriptions++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `event: hello\ndata: ${JSON.stringify({ subscriber_id: `s${script.subscriptions}`, seq: 5, lease_ms: 400, heartbeat_ms: 100 })}\n\n`,
      );
      script.streams.push(res);
      return;
    }
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (script.dropAcks) {
        req.socket.destroy();
        return;
      }
      script.acks.push(JSON.parse(body));
      res.writeHead(script.ackStatus, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const send = (event: string, data: object) => {
    for (const s of script.streams) s.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  return {
    script,
    url,
    send,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A logger that keeps each line's level and message. */
function recordingLogger(lines: { level: string; msg: string }[]): Logger {
  const at =
    (level: string) =>
    (_obj: object, msg = '') => {
      lines.push({ level, msg });
    };
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}

function subscriberOf(url: string, logger: Logger = silentLogger) {
  const evicted: InvalidationEvent[] = [];
  let clears = 0;
  const sub = createInvalidationSubscriber({
    identityUrl: url,
    internalSecret: 'x'.repeat(20),
    target: { evict: (e) => evicted.push(e), clear: () => clears++ },
    logger,
    metrics: createNoopMetrics(),
    retryMs: 20,
  });
  return { sub, evicted, clears: () => clears };
}

const until = async (check: () => boolean, ms = 2000) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
  return check();
};

describe('invalidation subscriber', () => {
  it('logs isolated acknowledgement failures at info and warns only once they persist', async () => {
    const f = await fakeIdentity();
    const lines: { level: string; msg: string }[] = [];
    const s = subscriberOf(f.url, recordingLogger(lines));
    const failures = () => lines.filter((l) => l.msg.startsWith('invalidation acknowledgement failed'));
    try {
      s.sub.start();
      await s.sub.whenLive();
      f.script.dropAcks = true;
      for (let i = 1; i <= PERSISTENT_FAILURES; i++) {
        f.send('heartbeat', { seq: 5 });
        expect(await until(() => failures().length >= i, 60_000)).toBe(true);
      }
      expect(failures().map((l) => l.level)).toEqual([
        ...Array.from({ length: PERSISTENT_FAILURES - 1 }, () => 'info'),
        'warn',
      ]);
      // One that goes through starts the count again.
      f.script.dropAcks = false;
      f.send('heartbeat', { seq: 5 });
      expect(await until(() => f.script.acks.length >= 2, 60_000)).toBe(true);
      f.script.dropAcks = true;
      f.send('heartbeat', { seq: 5 });
      expect(await until(() => failures().length > PERSISTENT_FAILURES, 60_000)).toBe(true);
      expect(failures().at(-1)!.level).toBe('info');
    } finally {
      await s.sub.stop();
      await f.close();
    }
  });

  it('takes a lease only from an acknowledged hello, applies events in order and acknowledges them', async () => {
    const f = await fakeIdentity();
    const s = subscriberOf(f.url);
    try {
      s.sub.start();
      expect(await s.sub.whenLive()).toBe(true);
      expect(f.script.acks[0]).toEqual({ subscriber_id: 's1', seq: 5 });
      const generation = s.sub.generation;
      f.send('invalidate', { seq: 6, kind: 'token', token_id: 'tok_1' });
      expect(await until(() => f.script.acks.some((a) => a.seq === 6))).toBe(true);
      expect(s.evicted).toEqual([{ seq: 6, kind: 'token', token_id: 'tok_1' }]);
      expect(s.sub.generation).toBeGreaterThan(generation);
    } finally {
      await s.sub.stop();
      await f.close();
    }
  });

  it('empties the cache when a heartbeat shows an event it never received', async () => {
    const f = await fakeIdentity();
    const s = subscriberOf(f.url);
    try {
      s.sub.start();
      await s.sub.whenLive();
      const clears = s.clears();
      f.send('heartbeat', { seq: 7 });
      expect(await until(() => f.script.acks.some((a) => a.seq === 7))).toBe(true);
      expect(s.clears()).toBe(clears + 1);
      expect(s.evicted).toEqual([]);
    } finally {
      await s.sub.stop();
      await f.close();
    }
  });

  it('lets the lease run out when heartbeats stop, though the stream stays open', async () => {
    const f = await fakeIdentity();
    const s = subscriberOf(f.url);
    try {
      s.sub.start();
      await s.sub.whenLive();
      // Renewed by heartbeats for a while...
      for (let i = 0; i < 5; i++) {
        f.send('heartbeat', { seq: 5 });
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(s.sub.leaseValid()).toBe(true);
      // ...then silence (a black-holed connection): within one lease the cache is not trusted.
      const silent = Date.now();
      expect(await until(() => !s.sub.leaseValid(), 1000)).toBe(true);
      expect(Date.now() - silent).toBeLessThanOrEqual(400);
      expect(f.script.streams).toHaveLength(1);
    } finally {
      await s.sub.stop();
      await f.close();
    }
  });

  it('subscribes again, from an empty cache, when identity refuses to renew the lease', async () => {
    const f = await fakeIdentity();
    const s = subscriberOf(f.url);
    try {
      s.sub.start();
      await s.sub.whenLive();
      f.script.ackStatus = 410;
      const clears = s.clears();
      f.send('heartbeat', { seq: 5 });
      expect(await until(() => f.script.subscriptions === 2)).toBe(true);
      expect(s.clears()).toBeGreaterThan(clears);
      f.script.ackStatus = 200;
      expect(await s.sub.whenLive()).toBe(true);
      expect(f.script.acks.at(-1)).toEqual({ subscriber_id: `s${f.script.subscriptions}`, seq: 5 });
    } finally {
      await s.sub.stop();
      await f.close();
    }
  });
});
