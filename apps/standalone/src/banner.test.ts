import { type BannerInfo, banner } from './banner';

// The start banner's line about the stack's own traces: a token on the start that made the
// project, the command that makes one after, nothing when self-tracing is off.

const INFO: BannerInfo = {
  urls: {
    gateway: 'http://localhost:8092',
    mcp: 'http://localhost:8092/mcp',
    core: 'http://localhost:8080',
    identity: 'http://localhost:8081',
    recall: 'http://localhost:8087',
    copilot: 'http://localhost:8093',
    metrics: 'http://localhost:9464/metrics',
    console: 'http://localhost:8094',
  },
  groups: { recall: 'live', verify: 'live' },
  projectId: 'prj_demo',
  orgId: 'org_demo',
  dataDir: '/tmp/data',
  repoDir: '/repo',
  startupMs: 1234,
};
const stackLines = (text: string) => text.split('\n').filter((l) => l.includes("Stack's traces"));

describe('banner, the stack traced by itself', () => {
  it('prints the token of the stack project once, on the line naming it', () => {
    const text = banner({ ...INFO, selfTrace: { projectId: 'prj_stack', token: 'svc_pat_stack' } });
    expect(stackLines(text)).toEqual([
      "  Stack's traces  prj_stack   (its own spans, for trace.search / trace.get; token (shown once): svc_pat_stack)",
    ]);
  });

  it('prints the command that makes a token after the first start', () => {
    const text = banner({ ...INFO, selfTrace: { projectId: 'prj_stack' } });
    expect(stackLines(text)).toEqual([expect.stringContaining('pnpm svc token create --project prj_stack')]);
  });

  it('prints nothing about it when the stack does not trace itself', () => {
    expect(stackLines(banner(INFO))).toEqual([]);
  });
});

describe('banner, the web console', () => {
  const consoleLines = (text: string) => text.split('\n').filter((l) => l.includes('Web console'));

  it('prints the console URL and the demo sign-in on the start that made the person', () => {
    const text = banner({ ...INFO, consoleLogin: { email: 'demo@example.com', password: 'pw-once' } });
    expect(consoleLines(text)).toEqual([
      '  Web console     http://localhost:8094   (sign in as demo@example.com, password pw-once (shown once))',
    ]);
  });

  it('names the command that signs someone up after the first start', () => {
    expect(consoleLines(banner(INFO))).toEqual([
      expect.stringContaining('pnpm svc user create --org org_demo --email you@example.com'),
    ]);
  });
});
