import { generateDemoProject } from '@svc/demo-data';
import { crashRecord, logRecord, sessionRecord, spanRecord, timestamp } from './schemas';
import { validateBatch } from './validate/validate-batch';

// The demo generator writes the ingest format; these schemas are its authority.
describe('ingest schemas', () => {
  const now = Date.parse('2025-06-01T12:00:00.000Z');
  const demo = generateDemoProject({ seed: 3, size: 0.5, now, days: 14 });

  it('accept every record the demo generator produces', () => {
    const batch = validateBatch({
      logs: demo.logs,
      crashes: demo.crashes,
      sessions: demo.sessions,
      events: demo.events,
      feedback: demo.feedback,
      metrics: demo.metrics,
      spans: demo.spans,
    });
    for (const type of ['logs', 'crashes', 'sessions', 'events', 'feedback', 'metrics', 'spans'] as const) {
      expect(demo[type].length).toBeGreaterThan(0);
      expect(batch[type]).toHaveLength(demo[type].length);
    }
  });

  it('accept the demo crashes of a larger project, frames with addresses and columns included', () => {
    const crashes = generateDemoProject({ seed: 3, size: 8, now, days: 14 }).crashes;
    const batch = validateBatch({ crashes });
    expect(batch.crashes).toHaveLength(crashes.length);
    // Both kinds of crash: signed by the SDK and left for the core to sign.
    expect(batch.crashes.some((c) => c.signature === undefined)).toBe(true);
    expect(batch.crashes.some((c) => c.signature !== undefined)).toBe(true);
    const frames = batch.crashes.flatMap((c) => c.frames);
    expect(frames.some((f) => f.address !== undefined && f.module !== undefined)).toBe(true);
    expect(frames.some((f) => f.column !== undefined)).toBe(true);
  });

  it('name the largest property of events whose properties are too long (the one to shorten)', () => {
    const event = {
      timestamp: now,
      event_name: 'checkout',
      user_id: 'u1',
      properties: { plan: 'pro', utm_source: Array.from({ length: 5000 }, (_, i) => i), step: 2 },
    };
    const size = JSON.stringify(event.properties.utm_source).length;
    expect(() => validateBatch({ events: [event] })).toThrow(
      expect.objectContaining({
        details: [
          expect.objectContaining({
            type: 'events',
            index: 0,
            reason: `properties: at most 16384 characters as JSON; the largest property, "utm_source", has ${size}`,
          }),
        ],
      }),
    );
  });

  it('take ISO 8601 with a zone or epoch milliseconds, nothing else', () => {
    expect(timestamp.parse('2025-06-01T12:00:00Z')).toBe(now);
    expect(timestamp.parse('2025-06-01T14:00:00.000+02:00')).toBe(now);
    expect(timestamp.parse(now)).toBe(now);
    for (const bad of ['2025-06-01 12:00:00', '2025-06-01T12:00:00', 'yesterday', 1.5, 1_700_000_000, '']) {
      expect(timestamp.safeParse(bad).success).toBe(false);
    }
  });

  it('are strict: unknown keys, project_id included, are refused', () => {
    const log = demo.logs[0]!;
    expect(logRecord.safeParse({ ...log, project_id: 'x' }).success).toBe(false);
    expect(logRecord.safeParse({ ...log, extra: 1 }).success).toBe(false);
    expect(sessionRecord.safeParse({ ...demo.sessions[0]!, status: 'weird' }).success).toBe(false);
  });

  it('normalize ids and defaults', () => {
    const span = spanRecord.parse({
      trace_id: 'AB'.repeat(16),
      span_id: 'CD'.repeat(8),
      kind: 'client',
      status: 'error',
      operation: 'GET /x',
      start_time: now,
      duration_ms: 3,
    });
    expect(span.trace_id).toBe('ab'.repeat(16));
    expect(span.sample_rate).toBe(1);
    expect(spanRecord.parse({ ...span, sample_rate: 0 }).sample_rate).toBe(1);
    expect(crashRecord.safeParse({ ...demo.crashes[0]!, signature: 'xyz' }).success).toBe(false);
  });

  it('trim ids as the tools trim what they are asked for, and refuse a blank one', () => {
    const log = { ...demo.logs[0]!, user_id: ' user 1\t', session_id: '\u00a0s1 ', device_id: 'd1' };
    // Both paths: the batch's (a fast path vouches for plain records) and the schema's.
    for (const parsed of [validateBatch({ logs: [log] }).logs[0]!, logRecord.parse(log)]) {
      expect(parsed).toMatchObject({ user_id: 'user 1', session_id: 's1', device_id: 'd1' });
    }
    expect(() => validateBatch({ logs: [{ ...log, user_id: ' \t ' }] })).toThrow(/1 invalid record/);
    try {
      validateBatch({ crashes: [{ ...demo.crashes[0]!, user_id: '   ' }] });
    } catch (err) {
      expect((err as { details: unknown }).details).toEqual([
        { type: 'crashes', index: 0, reason: expect.stringContaining('user_id') },
      ]);
    }
    expect.assertions(4);
  });

  it('report every bad record of a batch with its type and index', () => {
    const logs = [demo.logs[0], { ...demo.logs[1], level: 'TRACE' }, demo.logs[2], { message: 'x' }];
    expect(() => validateBatch({ logs })).toThrow(/2 invalid record/);
    try {
      validateBatch({ logs, feedback: 'nope' });
    } catch (err) {
      expect((err as { details: unknown }).details).toEqual([
        { type: 'logs', index: 1, reason: expect.stringContaining('level') },
        { type: 'logs', index: 3, reason: expect.stringContaining('timestamp') },
        { type: 'feedback', index: null, reason: 'must be an array' },
      ]);
    }
    expect.assertions(2);
  });
});
