import { keyedRecord } from '@svc/tool-kit';
import { z } from 'zod';
import { mcpOutputSchema, toolJsonSchema } from './json-schema';

// Maps with client-chosen keys (keyedRecord) are written as simply as z.record was: an object
// of any keys with the value schema, in /openapi.json, docs/tools.md and tools/list alike.

const output = z.strictObject({
  attributes: keyedRecord(z.string(), z.string()),
  fields: keyedRecord(z.string(), z.unknown()).describe('Any other fields.'),
});

describe('keyedRecord in JSON Schema', () => {
  it('is {type: object, additionalProperties: <value>} in the whole schema', () => {
    expect(toolJsonSchema(output, 'output')).toEqual({
      type: 'object',
      properties: {
        attributes: { type: 'object', additionalProperties: { type: 'string' } },
        fields: { type: 'object', description: 'Any other fields.', additionalProperties: true },
      },
      required: ['attributes', 'fields'],
      additionalProperties: false,
    });
  });

  it('is the same as an input', () => {
    expect(toolJsonSchema(z.strictObject({ a: keyedRecord(z.string(), z.number()) }), 'input')).toEqual({
      type: 'object',
      properties: { a: { type: 'object', additionalProperties: { type: 'number' } } },
      required: ['a'],
      additionalProperties: false,
    });
  });

  it('keeps its value schema in the tools/list envelope', () => {
    expect(mcpOutputSchema(output)).toEqual({
      type: 'object',
      properties: {
        attributes: { type: 'object', additionalProperties: { type: 'string' } },
        fields: { type: 'object', additionalProperties: true },
      },
    });
  });

  it('leaves required and format out of the envelope; the whole schema keeps them', () => {
    const dated = z.strictObject({ at: z.iso.datetime(), note: z.string().optional() });
    expect(mcpOutputSchema(dated)).toEqual({
      type: 'object',
      properties: { at: { type: 'string' }, note: { type: 'string' } },
    });
    expect(toolJsonSchema(dated, 'output')).toMatchObject({
      properties: { at: { type: 'string', format: 'date-time' } },
      required: ['at'],
    });
  });

  it('leaves other objects as they were: a strict empty object keeps its empty properties', () => {
    expect(toolJsonSchema(z.strictObject({}), 'output')).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
    expect(toolJsonSchema(z.strictObject({ a: z.string() }), 'output')).toMatchObject({
      properties: { a: { type: 'string' } },
    });
  });
});
