import { verifyRunSession, type verifyRunSessionInput, type verifyRunSessionOutput } from '@svc/tools-verify';
import type { z } from 'zod';
import { type CallScope, callCore, canReadTraces } from '../checks/evidence';
import { checkTrace, combine, type FetchedTrace, traceStep } from '../checks/expectations';
import type { CopilotContext } from '../context';
import {
  EXPECTATION_FORMS,
  type Expectation,
  expectationParts,
  GRAMMAR_NOTE,
  parseExpectations,
} from '../grammar/grammar';
import type { Translator } from '../llm/translator';
import { serve } from './copilot-call';

/**
 * Spans read of each trace: trace.get's largest page (its default page is sized for a model's
 * context, not for a check that reads every span it can). A longer trace is checked as far as this
 * goes: a pass over part of it is inconclusive (`truncated`).
 */
const TRACE_SPANS_READ = 2000;

type Input = z.output<typeof verifyRunSessionInput>;
type Output = z.input<typeof verifyRunSessionOutput>;

/**
 * Parts the grammar did not read go to the optional LLM one by one; a restatement counts only when
 * the grammar reads all of it.
 */
async function readExpectations(
  translator: Translator | undefined,
  text: string,
  signal: AbortSignal,
): Promise<{ expectations: { text: string; expectation: Expectation }[]; unparsed: string[] }> {
  const expectations: { text: string; expectation: Expectation }[] = [];
  const unparsed: string[] = [];
  for (const part of expectationParts(text)) {
    const direct = parseExpectations(part);
    if (direct.unparsed.length === 0 && direct.expectations.length === 1) {
      expectations.push({ text: part, expectation: direct.expectations[0]! });
      continue;
    }
    if (translator) {
      const t = await translator.translate(
        { text: part, forms: EXPECTATION_FORMS, note: GRAMMAR_NOTE },
        signal,
      );
      if (t.kind === 'restated') {
        const restated = parseExpectations(t.text);
        if (restated.unparsed.length === 0 && restated.expectations.length > 0) {
          for (const e of restated.expectations)
            expectations.push({ text: `${part} (read as: ${t.text})`, expectation: e });
          continue;
        }
      }
    }
    unparsed.push(part);
  }
  return { expectations, unparsed };
}

export async function runVerifySession(ctx: CopilotContext, scope: CallScope, input: Input): Promise<Output> {
  const ids = [...new Set((input.trace_ids ?? [input.trace_id!]).map((id) => id.toLowerCase()))];
  const recorded = { doc_refs: input.doc_refs ?? [], code_scope: input.code_scope ?? null };
  const traceAccess = canReadTraces(scope);
  // Without trace access nothing will be checked: the LLM is not asked either.
  const { expectations, unparsed } = await readExpectations(
    traceAccess ? ctx.translator : undefined,
    input.expectation,
    scope.signal,
  );
  if (!traceAccess)
    return {
      verdict: 'inconclusive',
      reason: 'Checking traces needs trace access (vis_trace), which this organization does not have.',
      expectations: [],
      unparsed,
      traces: [],
      ...recorded,
    };
  const traces: FetchedTrace[] = [];
  // One at a time: a batch of 20 traces should not take 20 of the core's query slots at once.
  if (expectations.length > 0)
    for (const id of ids)
      traces.push(
        (await callCore(ctx.core, scope, 'trace.get', {
          trace_id: id,
          limit: TRACE_SPANS_READ,
        })) as FetchedTrace,
      );
  const results = expectations.map(({ text, expectation }) => {
    const findings = traces.map((t) => checkTrace(expectation, t));
    return {
      expectation: text,
      verdict: combine(findings.map((f) => f.verdict)),
      evidence: findings.map((f, i) => traceStep(i + 1, traces[i]!, f)),
    };
  });
  const verdict = combine([...results.map((r) => r.verdict), ...unparsed.map(() => 'inconclusive' as const)]);
  return {
    verdict,
    reason: sessionReason(verdict, results, unparsed, ids.length),
    expectations: results,
    unparsed,
    traces: traces.map((t) => ({ trace_id: t.trace_id, found: t.found, span_count: t.span_count })),
    ...recorded,
  };
}

function sessionReason(
  verdict: Output['verdict'],
  results: { expectation: string; verdict: Output['verdict'] }[],
  unparsed: string[],
  traceCount: number,
): string {
  const traces = `${traceCount} trace${traceCount > 1 ? 's' : ''}`;
  const failed = results.filter((r) => r.verdict === 'refuted').map((r) => `"${r.expectation}"`);
  if (verdict === 'refuted')
    return `${failed.join(', ')} fails${traceCount > 1 ? ` in at least one of ${traces}` : ' in the trace'}.`;
  if (verdict === 'supported') return `Every expectation holds in all ${traces}.`;
  if (results.length === 0)
    return `No part of the expectation is one of the supported forms (${EXPECTATION_FORMS.join('; ')}).`;
  if (unparsed.length > 0)
    return `${unparsed.length} part(s) are not in a supported form: ${unparsed.map((u) => `"${u}"`).join(', ')}.`;
  return `The traces cannot decide every expectation (see each one's evidence).`;
}

/** verify.run_session, bound to its definition. */
export const verifyRunSessionTool = serve(verifyRunSession, ({ ctx, scope }, input) =>
  runVerifySession(ctx, scope, input),
);
