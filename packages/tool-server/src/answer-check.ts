import type { AnyTool } from '@svc/tool-kit';

/** What checking a backend answer's bytes against its tool's output schema came to. */
export type AnswerCheck =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; reason: 'invalid_json' | 'invalid_output'; issues?: unknown[] };

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses an answer and checks it against the tool's output schema: the same rule inline (the
 * executor) and in an answer worker, so where a check runs never changes what passes it.
 */
export function checkAnswerBytes(tool: AnyTool, bytes: Uint8Array): AnswerCheck {
  let raw: unknown;
  try {
    raw = JSON.parse(decoder.decode(bytes));
  } catch {
    return { ok: false, reason: 'invalid_json' };
  }
  return checkAnswer(tool, raw);
}

/** A parsed answer against the tool's output schema: its output, or the first issues. */
export function checkAnswer(tool: AnyTool, raw: unknown): AnswerCheck {
  const parsed = tool.output.safeParse(raw);
  if (!parsed.success)
    return { ok: false, reason: 'invalid_output', issues: parsed.error.issues.slice(0, 5) };
  return { ok: true, value: parsed.data as Record<string, unknown> };
}
