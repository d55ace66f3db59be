import { verifyRun, type verifyRunInput, type verifyRunOutput } from '@svc/tools-verify';
import type { z } from 'zod';
import { checkClaim } from '../checks/check-claim';
import { type CallScope, canReadTraces, Evidence } from '../checks/evidence';
import type { CopilotContext } from '../context';
import { closestClaimForms } from '../grammar/closest-forms';
import { CLAIM_FORM_OF, CLAIM_FORMS, type Claim, GRAMMAR_NOTE, parseClaim } from '../grammar/grammar';
import { quotedSuggestion } from '../grammar/quoted-suggestion';
import type { Translation } from '../llm/translator';
import { serve } from './copilot-call';

type Input = z.output<typeof verifyRunInput>;
type Output = z.input<typeof verifyRunOutput>;

/** The claim as read: by the grammar as given, else from the optional LLM's restatement. */
async function readClaim(
  ctx: CopilotContext,
  input: Input,
  signal: AbortSignal,
): Promise<
  { claim: Claim; text: string; via: 'grammar' | 'llm' } | { translation: Translation | undefined }
> {
  const direct = parseClaim(input.query);
  if (direct) return { claim: direct, text: input.query, via: 'grammar' };
  if (!ctx.translator) return { translation: undefined };
  const translation = await ctx.translator.translate(
    {
      text: input.query,
      forms: CLAIM_FORMS,
      note: GRAMMAR_NOTE,
      ...(input.evidence_context ? { context: input.evidence_context } : {}),
    },
    signal,
  );
  const restated = translation.kind === 'restated' ? parseClaim(translation.text) : undefined;
  return restated && translation.kind === 'restated'
    ? { claim: restated, text: translation.text, via: 'llm' }
    : { translation };
}

function unreadReason(translation: Translation | undefined, suggested: string | null): string {
  const base = 'The claim is not one of the supported forms, so the data was not asked (no guess is made).';
  if (suggested !== null) return `${base} A name with spaces goes in quotes: ${suggested}`;
  if (translation === undefined) return `${base} Restate it in one of the closest forms.`;
  if (translation.kind === 'failed')
    return `${base} The parser that restates free text could not be reached.`;
  if (translation.kind === 'none') return `${base} The parser found none of the forms in it.`;
  return `${base} The parser's restatement "${translation.text.slice(0, 200)}" is not one either.`;
}

export async function runVerify(ctx: CopilotContext, scope: CallScope, input: Input): Promise<Output> {
  const read = await readClaim(ctx, input, scope.signal);
  if (!('claim' in read)) {
    const suggested = quotedSuggestion(input.query);
    return {
      verdict: 'inconclusive',
      claim: null,
      reason: unreadReason(read.translation, suggested),
      evidence: [],
      closest_forms: closestClaimForms(input.query),
      suggested_query: suggested,
    };
  }
  const evidence = new Evidence(ctx.core, scope);
  const finding = await checkClaim(read.claim, evidence, { traces: canReadTraces(scope) });
  const { kind, ...parsed } = read.claim;
  return {
    verdict: finding.verdict,
    claim: { form: CLAIM_FORM_OF[kind], text: read.text, via: read.via, parsed },
    reason: finding.reason,
    evidence: evidence.steps,
    closest_forms: [],
    suggested_query: null,
  };
}

/** verify.run, bound to its definition. */
export const verifyRunTool = serve(verifyRun, ({ ctx, scope }, input) => runVerify(ctx, scope, input));
