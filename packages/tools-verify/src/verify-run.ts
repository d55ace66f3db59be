import { defineTool, keyedRecord } from '@svc/tool-kit';
import { z } from 'zod';
import { evidenceStep, verdict } from './verdict';

export const verifyRunInput = z.strictObject({
  query: z.string().trim().min(1).max(1000).describe('The claim, in a form of the description.'),
  evidence_context: z
    .string()
    .trim()
    .max(4000)
    .describe('Narrows a free-text claim (seen by the optional parser only).')
    .optional(),
});

export const verifyRunOutput = z.strictObject({
  verdict,
  claim: z
    .strictObject({
      form: z.string().describe('The grammar form the claim was read as.'),
      text: z.string().describe('The claim as checked: the query, or its restatement in the grammar.'),
      via: z
        .enum(['grammar', 'llm'])
        .describe('grammar: the query is in a form as given; llm: the optional parser restated it.'),
      parsed: keyedRecord(z.string(), z.unknown()).describe('The parts read from it (rates as fractions).'),
    })
    .nullable()
    .describe('null when the query matches no form.'),
  reason: z.string().describe('Why the verdict, in one or two sentences.'),
  evidence: z.array(evidenceStep),
  closest_forms: z.array(z.string()).describe('For a claim outside the grammar: the forms nearest to it.'),
  suggested_query: z
    .string()
    .nullable()
    .describe('The query with an unquoted name that has spaces quoted, when that reads; run it.'),
});

export const verifyRun = defineTool({
  name: 'verify.run',
  title: 'Verify a claim against the data',
  description:
    'Checks a claim against the data. Returns {verdict (supported|refuted|inconclusive), claim, ' +
    'reason, evidence, closest_forms, suggested_query}. Forms (<cmp>: ' +
    'above|below|at least|at most; [over <d> days], default 14): crash <signature> recurred|did ' +
    'not recur after version <v>|<date>; p50|p99 of operation <name> is <cmp> <n> ms; error rate ' +
    'of operation <name> is <cmp> <x>%; p50|p95|p99 of metric <name> is <cmp> <n>; release <v> ' +
    'crash-free rate is <cmp> <x>%; release <v> grade is <cmp> <A-F>; conversion from <a> to <b> ' +
    'is <cmp> <x>%; user <id> crashed [in session <s>]. Quote names with spaces.',
  input: verifyRunInput,
  output: verifyRunOutput,
  capability: 'vis_ai_verifier',
  backend: 'copilot',
  example: { query: 'release 2.4.1 crash-free rate is at least 99%' },
});
