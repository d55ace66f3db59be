import { BackendUnavailableError } from '@svc/errors';
import { TRACE_GET_MAX_SPANS } from '@svc/tools-trace';
import { type ConsoleTestBed, recordingTools, signIn, startConsoleTestBed } from '../testing/console-harness';
import type { ToolAnswer, ToolCaller } from '../tool-calls';

// The trace routes over a real identity (sessions, projects) with a recording tool caller in place
// of the gateway: what the pages send to the tools, and how they show the gateway's refusals. The
// same pages against a real gateway and core: apps/standalone/src/e2e.

let bed: ConsoleTestBed;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

beforeAll(async () => {
  bed = await startConsoleTestBed();
});
afterAll(() => bed.close());

async function signedIn(tools: ToolCaller, name: string) {
  const u = await bed.user(name);
  const agent = await signIn(bed.consoleApp({ tools }).app, u);
  return { agent, projectId: u.projectId };
}

const emptyList: ToolAnswer = { ok: true, status: 200, result: { items: [], limit: 50, has_more: false } };

describe('GET /traces', () => {
  it("sends trace.search only the filters filled in, for the page's project", async () => {
    const { tools, calls } = recordingTools(() => emptyList);
    const { agent, projectId } = await signedIn(tools, 'filters');
    await agent
      .get('/traces')
      .query({ project: projectId, user_id: 'u-7', session_id: '', status: 'error', min_duration_ms: '250' })
      .expect(200);
    await agent.get('/traces').expect(200);
    expect(calls).toEqual([
      { projectId, tool: 'trace.search', input: { user_id: 'u-7', status: 'error', min_duration_ms: 250 } },
      { projectId, tool: 'trace.search', input: {} },
    ]);
  });

  it('answers a duration that is no number with the form and a message, without calling the tool', async () => {
    const { tools, calls } = recordingTools(() => emptyList);
    const { agent, projectId } = await signedIn(tools, 'nan');
    const res = await agent.get('/traces').query({ project: projectId, min_duration_ms: 'slow' }).expect(400);
    expect(res.text).toContain('The minimum duration is a number of milliseconds.');
    expect(res.text).toContain('value="slow"');
    expect(calls).toEqual([]);
  });

  it("shows the gateway's refusals on the page with their status", async () => {
    const refusals: [ToolAnswer | Error, number, string][] = [
      [
        {
          ok: false,
          status: 400,
          error: { error: 'invalid_input', message: 'status: expected error or ok.' },
        },
        400,
        'status: expected error or ok.',
      ],
      [
        { ok: false, status: 404, error: { error: 'not_found', message: 'Unknown tool: trace.search' } },
        404,
        'vis_trace capability',
      ],
      [new BackendUnavailableError('gateway'), 503, 'The gateway service is unavailable; retry later.'],
    ];
    for (const [i, [answer, status, text]] of refusals.entries()) {
      const { tools } = recordingTools(() => answer);
      const { agent } = await signedIn(tools, `refusal${i}`);
      const res = await agent.get('/traces').expect(status);
      expect(res.text).toContain('role="alert"');
      expect(res.text).toContain(text);
      // Still the console's page: navigation and the filter form are there.
      expect(res.text).toContain('class="trace-filters"');
    }
  });

  it("never reads another organization's project", async () => {
    const { tools, calls } = recordingTools(() => emptyList);
    const { agent } = await signedIn(tools, 'mine');
    const { projectId: theirs } = await bed.user('theirs');
    await agent.get('/traces').query({ project: theirs }).expect(404);
    expect(calls).toEqual([]);
  });
});

describe('GET /traces/:trace_id', () => {
  it('asks trace.get for the trace and draws its spans', async () => {
    const spanOf = (id: string, parent: string | null, children: unknown[] = []) => ({
      span_id: id,
      parent_span_id: parent,
      operation: `op ${id}`,
      service: 'svc',
      kind: 'server',
      status: 'ok',
      start_time: new Date(bed.h.clock.now).toISOString(),
      offset_ms: 0,
      duration_ms: 10,
      self_ms: 5,
      orphan: false,
      sample_rate: 1,
      user_id: null,
      session_id: null,
      attributes: {},
      children,
    });
    const trace = {
      trace_id: TRACE_ID,
      found: true,
      started_at: new Date(bed.h.clock.now).toISOString(),
      duration_ms: 10,
      span_count: 2,
      error: false,
      services: ['svc'],
      truncated: false,
      spans: [spanOf('a', null, [spanOf('b', 'a')])],
    };
    const { tools, calls } = recordingTools(() => ({ ok: true, status: 200, result: trace }));
    const { agent, projectId } = await signedIn(tools, 'waterfall');
    const res = await agent.get(`/traces/${TRACE_ID}`).query({ project: projectId }).expect(200);
    expect(calls).toEqual([
      { projectId, tool: 'trace.get', input: { trace_id: TRACE_ID, limit: TRACE_GET_MAX_SPANS } },
    ]);
    expect(res.text).toContain('data-span-id="a"');
    expect(res.text).toContain('data-span-id="b" data-parent-span-id="a" data-depth="1"');
  });

  it('says so for an unknown trace, and for a refused call', async () => {
    const unknown: ToolAnswer = {
      ok: true,
      status: 200,
      result: {
        trace_id: TRACE_ID,
        found: false,
        started_at: null,
        duration_ms: 0,
        span_count: 0,
        error: false,
        services: [],
        truncated: false,
        spans: [],
      },
    };
    const { tools } = recordingTools(() => unknown);
    const { agent } = await signedIn(tools, 'unknown');
    const res = await agent.get(`/traces/${TRACE_ID}`).expect(404);
    expect(res.text).toContain('This project has no trace with this id.');

    const refused = recordingTools(() => ({
      ok: false,
      status: 400,
      error: { error: 'invalid_input', message: 'trace_id: expected 32 hex characters.' },
    }));
    const second = await signedIn(refused.tools, 'badid');
    const bad = await second.agent.get('/traces/nope').expect(400);
    expect(bad.text).toContain('trace_id: expected 32 hex characters.');
    expect(bad.text).toContain('All traces');
  });
});
