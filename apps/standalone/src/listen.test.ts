import { Agent, request } from 'node:http';
import { KEEP_ALIVE_TIMEOUT_MS } from '@svc/config';
import { listen } from './listen';

it("keeps idle connections open as long as every service does, not Node's 5 s", async () => {
  const served = await listen('test', (_req, res) => res.end('ok'), '127.0.0.1', 0);
  const agent = new Agent({ keepAlive: true });
  try {
    const announced = await new Promise<string | undefined>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: served.port, agent }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.headers['keep-alive']?.toString()));
      });
      req.once('error', reject);
      req.end();
    });
    expect(announced).toBe(`timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);
  } finally {
    agent.destroy();
    await served.close();
  }
});
