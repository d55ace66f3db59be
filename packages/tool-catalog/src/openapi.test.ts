import SwaggerParser from '@apidevtools/swagger-parser';
import { buildOpenApiDocument } from '@svc/tool-server';
import { allTools } from './catalog';

// The published document for the whole catalog, checked by a validator (not by eye).
describe('/openapi.json for the whole catalog', () => {
  const doc = buildOpenApiDocument(allTools, {
    serverUrl: 'http://localhost:8092',
  });

  it('is valid OpenAPI 3.1', async () => {
    const validated = (await SwaggerParser.validate(structuredClone(doc) as never)) as { openapi: string };
    expect(validated.openapi).toBe('3.1.0');
  });

  it('has exactly one path per tool and no project_id anywhere', () => {
    expect(Object.keys(doc.paths as object).sort()).toEqual(
      allTools.map((t) => `/v1/tools/${t.name}`).sort(),
    );
    expect(JSON.stringify(doc)).not.toContain('project_id');
  });
});
