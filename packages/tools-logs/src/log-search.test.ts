import { toolJsonSchema } from '@svc/tool-server';
import { logSearch } from './log-search';

// The input contract of each log tool, as callers see it (the documented defaults).
describe('log tool inputs', () => {
  it('publishes this input schema for log.search', () => {
    expect(toolJsonSchema(logSearch.input, 'input')).toMatchInlineSnapshot(`
      {
        "additionalProperties": false,
        "properties": {
          "cursor": {
            "type": "string",
          },
          "event_id": {
            "description": "The crash or event id a log line is linked to.",
            "maxLength": 200,
            "minLength": 1,
            "type": "string",
          },
          "limit": {
            "default": 20,
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
