import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BackendClient } from './backend-client';
import { type BackendClientMaker, createToolBackends } from './tool-backends';

/** A client that is never called: what was made, and what was closed. */
function fakeClients() {
  const made: string[] = [];
  const closed: string[] = [];
  const client: BackendClientMaker = (name) => {
    made.push(name);
    return {
      name,
      postJson: async () => ({}),
      getJson: async () => ({}),
      asToolCaller: () => ({ callTool: async () => ({}) }),
      breakerState: () => 'closed',
      close: () => closed.push(name),
    } satisfies BackendClient;
  };
  return { client, made, closed };
}

describe('createToolBackends', () => {
  it('makes a client and a tool caller per deployed backend, and watches the optional ones', () => {
    const { client, made, closed } = fakeClients();
    const tools = createToolBackends({
      client,
      coreUrl: 'http://127.0.0.1:1',
      recallUrl: 'http://127.0.0.1:2',
      copilotUrl: undefined,
      watchCore: false,
      healthIntervalMs: 60_000,
      logger: { debug() {}, info() {}, warn() {}, error() {} } as never,
    });
    expect(made).toEqual(['core', 'recall']);
    expect(Object.keys(tools.backends)).toEqual(['core', 'recall']);
    expect(Object.keys(tools.healthMonitor.snapshot())).toEqual(['recall', 'copilot']);
    // Optional backends are listed only after a first healthy probe.
    expect(tools.healthMonitor.isAvailable('recall')).toBe(false);
    tools.close();
    expect(closed).toEqual(['core', 'recall']);
  });

  it('watches the core and what the caller adds first, as the gateway reports them in /healthz', () => {
    const { client } = fakeClients();
    const identity = client('identity', 'http://127.0.0.1:3', 1000);
    const tools = createToolBackends({
      client,
      coreUrl: 'http://127.0.0.1:1',
      watchCore: true,
      alsoWatched: [{ name: 'identity', client: identity, required: true }],
      healthIntervalMs: 60_000,
      logger: { debug() {}, info() {}, warn() {}, error() {} } as never,
    });
    expect(Object.keys(tools.healthMonitor.snapshot())).toEqual(['core', 'identity', 'recall', 'copilot']);
    expect(tools.healthMonitor.isAvailable('core')).toBe(true);
  });
});

// One way: every serving entry (the gateway, the stdio server, any app to come) gets its tool
// backends and their health monitor from createToolBackends, never by building its own.
describe('the tool backends are built one way', () => {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const sources = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (name === 'node_modules' || name === 'testing' || name === 'e2e') return [];
      if (statSync(path).isDirectory()) return sources(path);
      return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
    });

  it('no app makes a health monitor of its own', () => {
    const apps = join(root, 'apps');
    const offenders = readdirSync(apps)
      .filter((app) => statSync(join(apps, app, 'src'), { throwIfNoEntry: false })?.isDirectory())
      .flatMap((app) => sources(join(apps, app, 'src')))
      .filter((path) => /\bcreateHealthMonitor\(/.test(readFileSync(path, 'utf8')))
      .map((path) => relative(root, path));
    expect(offenders).toEqual([]);
  });
});
