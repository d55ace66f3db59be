import { defineTool, exactlyOneOf, traceId } from '@svc/tool-kit';
import { z } from 'zod';
import { evidenceStep, verdict } from './verdict';

export const VERIFY_TRACES_MAX = 20;

export const verifyRunSessionInput = z
  .strictObject({
    trace_id: traceId.optional(),
    trace_ids: z
      .array(traceId)
      .min(1)
      .max(VERIFY_TRACES_MAX)
      .describe('Up to 20 traces, checked alike.')
      .optional(),
    expectation: z
      .string()
      .trim()
      .min(1)
      .max(2000)
      .describe('Forms of the description, joined by ";" or "and".'),
    doc_refs: z
      .array(z.string().trim().min(1).max(500))
      .min(1)
      .max(20)
      .describe('Where the expectation comes from; kept with the verdict.')
      .optional(),
    code_scope: z.string().trim().max(500).describe('Kept with the verdict.').optional(),
  })
  .superRefine(exactlyOneOf('trace_id', 'trace_ids'));

const expectationResult = z.strictObject({
  expectation: z.string(),
  verdict,
  evidence: z.array(evidenceStep),
});

export const verifyRunSessionOutput = z.strictObject({
  verdict: verdict.describe(
    'supported when every expectation holds in every trace; refuted when one fails in one trace.',
  ),
  reason: z.string().describe('Why the verdict, in one sentence.'),
  expectations: z.array(expectationResult),
  unparsed: z
    .array(z.string())
    .describe('Parts of the expectation outside the forms: the verdict is then at best inconclusive.'),
  traces: z.array(z.strictObject({ trace_id: z.string(), found: z.boolean(), span_count: z.number().int() })),
  doc_refs: z.array(z.string()),
  code_scope: z.string().nullable(),
});

export const verifyRunSession = defineTool({
  name: 'verify.run_session',
  title: 'Verify traces against an expectation',
  description:
    // The forms the verifier's grammar reads, word for word: its test fails while they differ.
    'Checks traces (trace.get) against expectations: no span over <n> ms; no error span; calls service <a> before <b>; joined by ' +
    '";" or "and". Returns {verdict: supported|refuted|inconclusive, reason, expectations: ' +
    '[{expectation, verdict, evidence}], unparsed, traces, doc_refs, code_scope}. Trace ids: trace.search.',
  input: verifyRunSessionInput,
  output: verifyRunSessionOutput,
  capability: 'vis_ai_verifier',
  backend: 'copilot',
  example: {
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
    expectation: 'no span over 2000 ms; no error span',
  },
});
