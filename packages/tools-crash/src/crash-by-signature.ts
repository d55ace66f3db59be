import { defineTool, limit, listOf } from '@svc/tool-kit';
import { z } from 'zod';
import { crashSummary } from './crash-summary';
import { signature } from './schemas';

export const crashBySignatureInput = z.strictObject({
  signature,
  limit: limit(50),
});
export const crashBySignatureOutput = listOf(crashSummary);

export const crashBySignature = defineTool({
  name: 'crash.by_signature',
  title: 'Crashes of one issue',
  description:
    'All crash events of one issue (signature: 16 hex characters, case-insensitive), newest first. ' +
    'An unknown signature gives an empty list. Get signatures from ' +
    'crash.stats or crash.aggregate; crash.recurrence tells whether an issue came back after a date.',
  input: crashBySignatureInput,
  output: crashBySignatureOutput,
  capability: 'base',
  backend: 'core',
  example: { signature: '3f9a1c2e7b4d6a80' },
});
