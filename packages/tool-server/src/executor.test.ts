import { BackendUnavailableError, InternalError, NotFoundError, UserInputError } from '@svc/errors';
import { createPromMetrics } from '@svc/metrics';
import { makeExecutor, principal } from './testing/fixtures';

const call = (args: unknown, tool = 'demo.echo', p = principal()) => ({
  principal: p,
  tool,
  args,
  transport: 'rest' as const,
  requestId: 'req-1',
});

describe('ToolExecutor', () => {
  it('runs the handler with the principal project, applies defaults and audits once', async () => {
    const { executor, audit } = makeExecutor();
    const result = await executor.call(call({ word: 'hi' }));
    expect(result).toEqual({ items: [{ word: 'hi', project: 'prj_a' }], limit: 5, has_more: false });
    expect(audit.entries).toHaveLength(1);
    expect(audit.entries[0]).toMatchObject({
      token_id: 'tok_1',
      user_id: 'usr_1',
      org_id: 'org_1',
      project_id: 'prj_a',
      tool: 'demo.echo',
      transport: 'rest',
      status: 'ok',
      duration_ms: 7,
      request_id: 'req-1',
      params: { word: 'hi' },
    });
  });

  it('rejects unknown keys, project_id included, as invalid input with the issues', async () => {
    const { executor, audit } = makeExecutor();
    const err = await executor.call(call({ word: 'hi', project_id: 'prj_b' })).catch((e) => e);
    expect(err).toBeInstanceOf(UserInputError);
    expect(JSON.stringify(err.details)).toContain('project_id');
    expect(audit.entries.map((e) => e.status)).toEqual(['invalid_input']);
  });

  it('rejects out-of-range limits', async () => {
    const { executor } = makeExecutor();
    await expect(executor.call(call({ word: 'hi', limit: 0 }))).rejects.toBeInstanceOf(UserInputError);
    await expect(executor.call(call({ word: 'hi', limit: 1001 }))).rejects.toBeInstanceOf(UserInputError);
    await expect(executor.call(call({ word: 'hi', limit: 2.5 }))).rejects.toBeInstanceOf(UserInputError);
  });

  it('treats unknown and hidden tools identically', async () => {
    const { executor, audit } = makeExecutor();
    const unknown = await executor.call(call({}, 'demo.nope')).catch((e) => e);
    const hiddenByCapability = await executor.call(call({}, 'demo.traced')).catch((e) => e);
    const hiddenByDeployment = await executor.call(call({}, 'demo.recall')).catch((e) => e);
    for (const err of [unknown, hiddenByCapability, hiddenByDeployment])
      expect(err).toBeInstanceOf(NotFoundError);
    expect(unknown.message.replace('demo.nope', 'X')).toBe(
      hiddenByCapability.message.replace('demo.traced', 'X'),
    );
    expect(audit.entries.map((e) => e.status)).toEqual(['not_found', 'not_found', 'not_found']);
  });

  it('shows controlled tools only with the capability and an org (fail closed)', () => {
    const { executor } = makeExecutor({ recallUp: true });
    const names = (p = principal()) => executor.visibleTools(p).map((t) => t.name);
    expect(names()).toEqual(['demo.echo', 'demo.recall']);
    expect(names(principal({ capabilities: new Set(['vis_trace']) }))).toContain('demo.traced');
    expect(names(principal({ orgId: null, capabilities: new Set(['vis_trace']) }))).not.toContain(
      'demo.traced',
    );
    expect(executor.publishedTools().map((t) => t.name)).toEqual(['demo.echo', 'demo.traced', 'demo.recall']);
  });

  it('never leaks handler error text and audits the failure', async () => {
    const { executor, audit } = makeExecutor();
    const err = await executor.call(call({ word: 'boom' })).catch((e) => e);
    expect(err).toBeInstanceOf(InternalError);
    expect(err.message).not.toContain('secret');
    expect(audit.entries[0]?.status).toBe('error');
  });

  it('refuses a result that breaks the output schema', async () => {
    const { executor } = makeExecutor();
    await expect(executor.call(call({ word: 'shape' }))).rejects.toBeInstanceOf(InternalError);
  });

  it('fails with 503 and returns nothing when the audit store cannot be written', async () => {
    const { executor, audit } = makeExecutor();
    audit.failing = true;
    const err = await executor.call(call({ word: 'hi' })).catch((e) => e);
    expect(err).toBeInstanceOf(BackendUnavailableError);
    expect(JSON.stringify(err)).not.toContain('hi');
  });

  it('caps the audited params of huge inputs', async () => {
    const { executor, audit } = makeExecutor();
    await executor.call(call({ word: 'x'.repeat(20000) })).catch(() => undefined);
    expect(JSON.stringify(audit.entries[0]?.params).length).toBeLessThan(9000);
  });

  it('counts each call by tool, transport and outcome, and its latency by tool and transport', async () => {
    const metrics = createPromMetrics({ defaultMetrics: false, prefix: 't_' });
    const { executor } = makeExecutor({ metrics });
    const calls = [
      { tool: 'demo.echo', args: { word: 'a' }, transport: 'rest' },
      { tool: 'demo.echo', args: { word: 'b' }, transport: 'mcp' },
      { tool: 'demo.echo', args: { word: 'c' }, transport: 'mcp' },
      { tool: 'demo.echo', args: { limit: 0 }, transport: 'mcp' },
      { tool: 'demo.nope', args: {}, transport: 'stdio' },
    ] as const;
    const outcomes: string[] = [];
    for (const c of calls) {
      const outcome = await executor
        .call({ ...call(c.args, c.tool), transport: c.transport })
        .then(() => 'ok')
        .catch((err) => (err instanceof NotFoundError ? 'not_found' : 'invalid_input'));
      outcomes.push(`${executor.registry.get(c.tool) ? c.tool : '(unknown)'}|${c.transport}|${outcome}`);
    }
    const text = await metrics.render();
    for (const key of new Set(outcomes)) {
      const [tool, transport, status] = key.split('|');
      const n = outcomes.filter((o) => o === key).length;
      expect(text).toContain(
        `t_tool_calls_total{tool="${tool}",transport="${transport}",status="${status}"} ${n}`,
      );
    }
    for (const key of new Set(outcomes.map((o) => o.split('|').slice(0, 2).join('|')))) {
      const [tool, transport] = key.split('|');
      const n = outcomes.filter((o) => o.startsWith(`${key}|`)).length;
      expect(text).toContain(
        `t_tool_call_duration_seconds_count{tool="${tool}",transport="${transport}"} ${n}`,
      );
    }
  });
});
