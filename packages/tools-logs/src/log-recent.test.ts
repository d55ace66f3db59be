import { toolJsonSchema } from '@svc/tool-server';
import { logRecent } from './log-recent';

// The input contract of each log tool, as callers see it (the documented defaults).
describe('log tool inputs', () => {
  it.each(['error', 'Error', ' ERROR ', 'eRrOr'])(
    'log.recent takes level %j in any case, as ERROR',
    (level) => {
      expect(logRecent.input.parse({ level })).toEqual({ level: 'ERROR', limit: 20 });
    },
  );

  it('log.recent publishes the canonical level names and still refuses an unknown level', () => {
    const { properties } = toolJsonSchema(logRecent.input, 'input') as {
      properties: { level: { enum: string[]; description: string } };
    };
    expect(properties.level.enum).toEqual(['DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL']);
    expect(properties.level.description).toMatch(/any case/);
    expect(logRecent.input.safeParse({ level: 'loud' }).success).toBe(false);
    expect(logRecent.input.safeParse({ level: 'warning' }).success).toBe(false);
    expect(logRecent.input.safeParse({ level: 3 }).success).toBe(false);
  });

  it('normalizes trace ids to lowercase and rejects malformed ones', () => {
    const id = '4BF92F3577B34DA6A3CE929D0E0E4736';
    expect(logRecent.input.parse({ trace_id: id }).trace_id).toBe(id.toLowerCase());
    expect(logRecent.input.safeParse({ trace_id: 'xyz' }).success).toBe(false);
  });
});
