import { defineTool } from '@svc/tool-kit';
import { z } from 'zod';

// Test-only tool definitions standing in for the groups that are not built yet: one controlled
// by a capability (like the trace tools) and one served by the optional recall backend.
const probeInput = z.strictObject({ note: z.string().max(50).optional() });
const probeOutput = z.strictObject({ served_by: z.string(), project: z.string() });

export const controlledProbe = defineTool({
  name: 'fixture.controlled',
  title: 'Controlled probe',
  description: 'Test tool visible only with capability vis_trace.',
  input: probeInput,
  output: probeOutput,
  capability: 'vis_trace',
  backend: 'core',
  example: {},
});

export const recallProbe = defineTool({
  name: 'fixture.recall',
  title: 'Recall probe',
  description: 'Test tool served by the optional recall backend.',
  input: probeInput,
  output: probeOutput,
  capability: 'base',
  backend: 'recall',
  example: {},
});

/** Test tool whose answer is as large as the test asks (`bytes`): a large answer, read under the answer budget. */
export const largeProbe = defineTool({
  name: 'fixture.large',
  title: 'Large probe',
  description: 'Test tool answering with `bytes` characters of text.',
  input: z.strictObject({
    bytes: z.number().int().min(1).max(8_000_000),
    note: z.string().max(50).optional(),
  }),
  output: z.strictObject({ text: z.string() }),
  capability: 'base',
  backend: 'core',
  example: { bytes: 1 },
});
