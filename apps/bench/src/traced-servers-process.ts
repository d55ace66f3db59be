// The middleware benchmark's servers, in a process of their own (forked, IPC): the same express
// handler twice, plain and with the SDK's server middleware, whose spans an exporter sends to the
// DSN it is given. Answers with both URLs; on 'cpu', with the process's CPU time so far (µs); on
// 'stats', with what the exporter sent and dropped.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTracer, expressTracing } from '@svc/sdk-node';
import express, { type Request, type Response } from 'express';

export interface TracedServers {
  plain: string;
  traced: string;
}

async function listen(app: express.Express): Promise<string> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// A small handler, so the middleware's share of the request is as large as it gets.
const handler = (req: Request, res: Response) => void res.json({ id: req.params.id, total: 42 });

// The parent gone (or done): nothing to serve.
process.once('disconnect', () => process.exit(0));

process.once('message', async ({ dsn }: { dsn: string }) => {
  const tracer = createTracer({ service: 'bench-orders', exporter: { dsn } });
  const plain = express();
  plain.post('/v1/orders/:id', handler);
  const traced = express();
  traced.use(expressTracing(tracer));
  traced.post('/v1/orders/:id', handler);
  const servers: TracedServers = { plain: await listen(plain), traced: await listen(traced) };
  process.send?.(servers);
  process.on('message', async (message) => {
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.(user + system);
    } else if (message === 'stats') {
      await tracer.exporter.flush();
      process.send?.(tracer.exporter.stats());
    }
  });
});
