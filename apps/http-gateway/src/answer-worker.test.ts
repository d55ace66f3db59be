import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { allTools } from '@svc/tool-catalog';
import { AnswerWorkers } from '@svc/tool-server';
import { defaultAnswerWorkers } from './config';

// The gateway's answer worker must know every tool the gateway registers: one it did not know
// would quietly be checked on the event loop again.
describe("the gateway's answer worker", () => {
  it('serves every tool of the catalog', async () => {
    const workers = new AnswerWorkers({
      module: new URL('./answer-worker.ts', import.meta.url),
      workers: 1,
      fromBytes: 1,
      niceness: 0,
      maxHeapMb: 128,
      logger: silentLogger,
      metrics: createNoopMetrics(),
    });
    try {
      // Loading the catalog in a worker takes seconds on a loaded machine: a ceiling, not a deadline.
      const end = Date.now() + 240_000;
      while (!workers.serves(allTools[0]!.name) && Date.now() < end)
        await new Promise((r) => setTimeout(r, 25));
      expect(allTools.filter((tool) => !workers.serves(tool.name)).map((t) => t.name)).toEqual([]);
      expect(allTools.length).toBeGreaterThan(20);
    } finally {
      await workers.close();
    }
  });

  it('defaults to one thread per core but one, at least one and at most two', () => {
    expect([1, 2, 3, 4, 16].map((cores) => defaultAnswerWorkers(cores))).toEqual([1, 1, 2, 2, 2]);
  });
});
