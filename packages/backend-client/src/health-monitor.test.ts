import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import type { Logger } from '@svc/tool-kit';
import { type BackendClient, createBackendClient } from './backend-client';
import { createHealthMonitor, UNLIST_AFTER_FAILED_PROBES } from './health-monitor';
import { json, type StubBackend, startStubBackend } from './testing/stub-backend';

interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  obj: Record<string, unknown>;
  msg: string | undefined;
}

function recordingLogger(lines: LogLine[]): Logger {
  const at =
    (level: LogLine['level']) =>
    (obj: object, msg?: string): void => {
      lines.push({ level, obj: obj as Record<string, unknown>, msg });
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

/** What the monitor said about one backend, debug lines left out (a failed probe's error). */
const said = (lines: LogLine[], backend: string) =>
  lines
    .filter((l) => l.level !== 'debug' && l.obj.backend === backend)
    .map((l) => ({ level: l.level, msg: l.msg }));

let recall: StubBackend;
let recallClient: BackendClient;

function backendClient(name: string, baseUrl: string): BackendClient {
  return createBackendClient({
    name,
    baseUrl,
    internalSecret: 'internal-secret-for-tests-0123456789',
    timeoutMs: 1000,
    breaker: {
      volumeThreshold: 100,
      errorThresholdPercentage: 50,
      resetTimeoutMs: 1000,
      rollingCountTimeoutMs: 10_000,
    },
    metrics: createNoopMetrics(),
    logger: silentLogger,
  });
}

beforeEach(async () => {
  recall = await startStubBackend(json(200, { status: 'ok' }));
  recallClient = backendClient('recall', recall.url);
});

afterEach(async () => {
  recallClient.close();
  await recall.close();
});

describe('health monitor', () => {
  it('never reports an undeployed backend available and never probes it', async () => {
    const changes: Array<[string, boolean]> = [];
    const monitor = createHealthMonitor({
      backends: [{ name: 'copilot', client: undefined, required: false }],
      intervalMs: 60_000,
      onChange: (name, available) => changes.push([name, available]),
    });
    await monitor.probeNow();
    expect(monitor.isAvailable('copilot')).toBe(false);
    expect(monitor.snapshot().copilot).toEqual({
      required: false,
      deployed: false,
      reachable: null,
      available: false,
      breaker: null,
      checked_at: null,
    });
    expect(changes).toEqual([]);
  });

  it('keeps a required backend listed when unreachable, and reports its real state', async () => {
    const core = await startStubBackend(json(503, {}));
    const coreClient = backendClient('core', core.url);
    try {
      const monitor = createHealthMonitor({
        backends: [{ name: 'core', client: coreClient, required: true }],
        intervalMs: 60_000,
      });
      expect(monitor.snapshot().core?.reachable).toBeNull();
      await monitor.probeNow();
      expect(monitor.isAvailable('core')).toBe(true);
      expect(core.seen.length).toBeGreaterThan(0);
      expect(monitor.snapshot().core).toMatchObject({ reachable: false, available: true });
      expect(monitor.snapshot().core?.checked_at).toEqual(expect.any(String));
    } finally {
      coreClient.close();
      await core.close();
    }
  });

  it('lists an optional backend at a healthy probe and unlists it after failed probes in a row', async () => {
    const changes: Array<[string, boolean]> = [];
    const monitor = createHealthMonitor({
      backends: [{ name: 'recall', client: recallClient, required: false }],
      intervalMs: 60_000,
      onChange: (name, available) => changes.push([name, available]),
    });
    expect(monitor.isAvailable('recall')).toBe(false);
    await monitor.probeNow();
    expect(monitor.isAvailable('recall')).toBe(true);
    expect(recall.seen.map((s) => [s.method, s.url])).toEqual([['GET', '/healthz']]);
    await monitor.probeNow();
    expect(changes).toEqual([['recall', true]]);

    // One failed probe is not an outage: still listed, and reported unreachable.
    recall.handle = json(503, { status: 'down' });
    await monitor.probeNow();
    expect(monitor.isAvailable('recall')).toBe(true);
    expect(monitor.snapshot().recall).toMatchObject({ reachable: false, available: true });
    expect(changes).toEqual([['recall', true]]);
    // A healthy one in between starts the count again.
    recall.handle = json(200, { status: 'ok' });
    await monitor.probeNow();
    recall.handle = json(503, { status: 'down' });
    await monitor.probeNow();
    expect(monitor.isAvailable('recall')).toBe(true);
    expect(changes).toEqual([['recall', true]]);
    // UNLIST_AFTER_FAILED_PROBES in a row unlist it.
    await monitor.probeNow();
    expect(monitor.isAvailable('recall')).toBe(false);
    expect(monitor.snapshot().recall).toMatchObject({ reachable: false, available: false });
    expect(changes).toEqual([
      ['recall', true],
      ['recall', false],
    ]);

    const subscribed: Array<[string, boolean]> = [];
    const unsubscribe = monitor.subscribe((name, available) => subscribed.push([name, available]));
    recall.handle = json(200, { status: 'ok' });
    await monitor.probeNow();
    expect(changes.at(-1)).toEqual(['recall', true]);
    expect(subscribed).toEqual([['recall', true]]);
    unsubscribe();
    recall.handle = json(503, {});
    for (let i = 0; i < UNLIST_AFTER_FAILED_PROBES; i++) await monitor.probeNow();
    expect(changes.at(-1)).toEqual(['recall', false]);
    expect(subscribed).toEqual([['recall', true]]);
  });

  it('probes on start and keeps probing on its interval', async () => {
    recall.handle = json(503, {});
    let flipped!: () => void;
    const up = new Promise<void>((resolve) => {
      flipped = resolve;
    });
    const monitor = createHealthMonitor({
      backends: [{ name: 'recall', client: recallClient, required: false }],
      intervalMs: 20,
      onChange: (_name, available) => available && flipped(),
    });
    monitor.start();
    try {
      await new Promise<void>((resolve) => {
        const wait = () => (recall.seen.length >= 2 ? resolve() : setTimeout(wait, 5));
        wait();
      });
      expect(monitor.isAvailable('recall')).toBe(false);
      recall.handle = json(200, { status: 'ok' });
      await up;
      expect(monitor.isAvailable('recall')).toBe(true);
    } finally {
      monitor.stop();
    }
  });

  // A healthy stack's first probe is news, not a problem: `pnpm start` logs at warn by default,
  // and two warnings used to open its banner on every healthy start.
  it('logs a healthy first probe and a recovery at info, an unreachable backend at warn', async () => {
    const core = await startStubBackend(json(200, { status: 'ok' }));
    const coreClient = backendClient('core', core.url);
    const lines: LogLine[] = [];
    try {
      const monitor = createHealthMonitor({
        backends: [
          { name: 'core', client: coreClient, required: true },
          { name: 'recall', client: recallClient, required: false },
        ],
        intervalMs: 60_000,
        logger: recordingLogger(lines),
      });
      await monitor.probeNow();
      expect(lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
      expect(said(lines, 'core')).toEqual([{ level: 'info', msg: 'backend reachable' }]);
      expect(said(lines, 'recall')).toEqual([{ level: 'info', msg: 'backend reachable' }]);

      await monitor.probeNow();
      expect(said(lines, 'core')).toHaveLength(1);

      core.handle = json(503, {});
      recall.handle = json(503, {});
      await monitor.probeNow();
      expect(said(lines, 'core').at(-1)).toEqual({ level: 'warn', msg: 'backend unreachable' });
      expect(said(lines, 'recall').at(-1)).toEqual({ level: 'warn', msg: 'backend unreachable' });

      core.handle = json(200, { status: 'ok' });
      recall.handle = json(200, { status: 'ok' });
      await monitor.probeNow();
      expect(said(lines, 'core').at(-1)).toEqual({ level: 'info', msg: 'backend reachable' });
      expect(said(lines, 'recall').at(-1)).toEqual({ level: 'info', msg: 'backend reachable' });
      expect(said(lines, 'core')).toHaveLength(3);
      expect(said(lines, 'recall')).toHaveLength(3);
    } finally {
      coreClient.close();
      await core.close();
    }
  });

  it('warns when a deployed backend is unreachable on its first probe', async () => {
    recall.handle = json(503, {});
    const lines: LogLine[] = [];
    const monitor = createHealthMonitor({
      backends: [{ name: 'recall', client: recallClient, required: false }],
      intervalMs: 60_000,
      logger: recordingLogger(lines),
    });
    await monitor.probeNow();
    expect(said(lines, 'recall')).toEqual([{ level: 'warn', msg: 'backend unreachable' }]);
  });
});
