import { toMcpTool, toolJsonSchema } from '@svc/tool-server';
import { allTools } from './catalog';
import { lintSchema } from './testing/schema-portability';

// Every schema a client can receive, tools/list and /openapi.json alike, passes the MCP
// Inspector's portability check (`--strict`): no warnings, not only no errors.
describe.each(allTools.map((t) => [t.name, t] as const))('%s schemas are portable', (_name, tool) => {
  const listed = toMcpTool(tool);

  it.each([
    ['tools/list inputSchema', listed.inputSchema],
    ['tools/list outputSchema', listed.outputSchema],
    ['openapi input', toolJsonSchema(tool.input, 'input')],
    ['openapi output', toolJsonSchema(tool.output, 'output')],
  ])('%s', (_where, schema) => {
    expect(lintSchema(schema)).toEqual([]);
  });
});
