import SwaggerParser from '@apidevtools/swagger-parser';
import { buildOpenApiDocument } from './openapi';
import { echoTool, recallTool, traceOnlyTool } from './testing/fixtures';

describe('OpenAPI document', () => {
  const doc = buildOpenApiDocument([echoTool, traceOnlyTool, recallTool], {
    serverUrl: 'http://localhost:8092',
  });

  it('is valid OpenAPI 3.1 according to a validator', async () => {
    const validated = (await SwaggerParser.validate(structuredClone(doc) as never)) as { openapi: string };
    expect(validated.openapi).toBe('3.1.0');
  });

  it('has one POST path per tool with input and output schemas', () => {
    const paths = doc.paths as Record<string, { post: Record<string, unknown> }>;
    expect(Object.keys(paths).sort()).toEqual([
      '/v1/tools/demo.echo',
      '/v1/tools/demo.recall',
      '/v1/tools/demo.traced',
    ]);
    const schemas = (doc.components as { schemas: Record<string, Record<string, unknown>> }).schemas;
    expect(schemas.demo_echo_input).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['word'],
    });
    expect(schemas.demo_echo_output).toMatchObject({
      type: 'object',
      required: ['items', 'limit', 'has_more'],
    });
  });
});
