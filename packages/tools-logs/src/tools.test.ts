import { toolJsonSchema } from '@svc/tool-server';
import { logAggregate } from './log-aggregate';
import { logBySession } from './log-by-session';
import { logByUser } from './log-by-user';
import { logRecent } from './log-recent';
import { logSearch } from './log-search';

// The input contract of each log tool, as callers see it (the documented defaults).
describe('log tool inputs', () => {
  it('applies the documented default limits', () => {
    expect(logSearch.input.parse({ search: 'x' }).limit).toBe(20);
    expect(logRecent.input.parse({}).limit).toBe(20);
    expect(logByUser.input.parse({ user_id: 'u' }).limit).toBe(50);
    expect(logBySession.input.parse({ session_id: 's' }).limit).toBe(100);
    expect(logAggregate.input.parse({ group_by: 'level' }).limit).toBe(500);
  });

  it('requires the required fields', () => {
    expect(logSearch.input.safeParse({}).success).toBe(false);
    expect(logSearch.input.safeParse({ search: '   ' }).success).toBe(false);
    expect(logByUser.input.safeParse({}).success).toBe(false);
    expect(logBySession.input.safeParse({}).success).toBe(false);
    expect(logAggregate.input.safeParse({}).success).toBe(false);
  });

  it('accepts only the documented enum values', () => {
    expect(logRecent.input.safeParse({ level: 'ERROR' }).success).toBe(true);
    expect(logRecent.input.safeParse({ source: 'device' }).success).toBe(true);
    expect(logRecent.input.safeParse({ source: 'browser' }).success).toBe(false);
    for (const g of ['level', 'user_id', 'platform'])
      expect(logAggregate.input.safeParse({ group_by: g }).success).toBe(true);
    expect(logAggregate.input.safeParse({ group_by: 'message' }).success).toBe(false);
    expect(logAggregate.input.safeParse({ group_by: 'level', limit: 10_000 }).success).toBe(true);
  });

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

  it('publishes this input schema for log.search', () => {
    expect(toolJsonSchema(logSearch.input, 'input')).toMatchInlineSnapshot(`
{
  "additionalProperties": false,
  "properties": {
    "event_id": {
      "description": "The crash or event id a log line is linked to.",
      "maxLength": 200,
      "minLength": 1,
      "type": "string",
    },
    "limit": {
      "default": 20,
      "description": "Most items to return.",
      "maximum": 1000,
      "minimum": 1,
      "type": "integer",
    },
    "search": {
      "description": "Text to find in log messages: case-insensitive literal substring (%, _, * match themselves).",
      "maxLength": 200,
      "minLength": 1,
      "type": "string",
    },
    "source": {
      "description": "Where the log line came from.",
      "enum": [
        "backend",
        "device",
      ],
      "type": "string",
    },
    "trace_id": {
      "description": "W3C trace id: 32 hex characters.",
      "pattern": "^[0-9a-fA-F]{32}$",
      "type": "string",
    },
  },
  "required": [
    "search",
  ],
  "type": "object",
}
`);
  });
});
