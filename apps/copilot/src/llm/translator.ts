import type { Logger } from '@svc/tool-kit';
import type { LlmConfig } from '../config';

export interface TranslationRequest {
  text: string;
  /** The forms the answer must take, and what they share. */
  forms: readonly string[];
  note: string;
  /** What the caller knows that narrows the text (verify.run's evidence_context). */
  context?: string;
}

export type Translation =
  | { kind: 'restated'; text: string }
  /** The model said the text states none of the forms. */
  | { kind: 'none' }
  /** The model could not be asked, or answered nonsense; details are in the log, not the answer. */
  | { kind: 'failed' };

/** Restates free text in the grammar. Its answer is only ever parsed by the grammar, never trusted. */
export interface Translator {
  translate(request: TranslationRequest, signal: AbortSignal): Promise<Translation>;
}

const NONE = 'NONE';
const MAX_ANSWER_CHARS = 2000;

function systemPrompt(r: TranslationRequest): string {
  return [
    "You restate a claim about a mobile app's production data in exactly one of these forms:",
    ...r.forms.map((f) => `- ${f}`),
    r.note,
    'Parentheses with | list alternatives (write one); square brackets are optional; <...> are values to fill in.',
    `Answer with the restated claim alone on one line, or ${NONE} when the text states none of the forms.`,
    'Never invent a value (a version, a name, a threshold) the text does not give.',
  ].join('\n');
}

/**
 * An OpenAI-compatible chat completions API (SVC_COPILOT_LLM_URL + /chat/completions). Temperature
 * 0, one line back. Whatever comes back is only parsed by the grammar, so a model that goes wrong
 * can make a claim unreadable, never a verdict wrong.
 */
export function createChatTranslator(config: LlmConfig, logger: Logger): Translator {
  const url = `${config.url.replace(/\/+$/, '')}/chat/completions`;
  return {
    async translate(request, signal) {
      const user = request.context ? `${request.text}\n\nContext: ${request.context}` : request.text;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: config.model,
            temperature: 0,
            max_tokens: 200,
            messages: [
              { role: 'system', content: systemPrompt(request) },
              { role: 'user', content: user },
            ],
          }),
          signal: AbortSignal.any([signal, AbortSignal.timeout(config.timeoutMs)]),
        });
        if (!res.ok) {
          logger.warn({ status: res.status }, 'llm: the chat completions call failed');
          return { kind: 'failed' };
        }
        const body = (await res.json()) as { choices?: { message?: { content?: unknown } }[] };
        const content = body.choices?.[0]?.message?.content;
        if (typeof content !== 'string') {
          logger.warn({ model: config.model }, 'llm: the answer has no message content');
          return { kind: 'failed' };
        }
        const line = content
          .trim()
          .split('\n')[0]!
          .trim()
          .replace(/^`+|`+$/g, '')
          .trim()
          .slice(0, MAX_ANSWER_CHARS);
        return line === '' || line.toUpperCase() === NONE
          ? { kind: 'none' }
          : { kind: 'restated', text: line };
      } catch (err) {
        if (signal.aborted) throw err;
        logger.warn({ err: (err as Error).name }, 'llm: the chat completions call failed');
        return { kind: 'failed' };
      }
    },
  };
}
