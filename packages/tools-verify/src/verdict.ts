import { keyedRecord } from '@svc/tool-kit';
import { z } from 'zod';

export const verdict = z
  .enum(['supported', 'refuted', 'inconclusive'])
  .describe('inconclusive: the data cannot decide it, or the claim is not one of the supported forms.');

/** One step of the evidence chain: what the checker asked which tool, and what it saw. */
export const evidenceStep = z.strictObject({
  step: z.number().int().describe('1-based, in the order the checker took them.'),
  tool: z.string().describe('The tool called for this project, e.g. trace.aggregate.'),
  parameters: keyedRecord(z.string(), z.unknown()),
  observed: z.string().describe('What the answer showed, in one sentence with the numbers.'),
});
export type EvidenceStep = z.infer<typeof evidenceStep>;
