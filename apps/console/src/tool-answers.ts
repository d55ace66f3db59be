import { BackendTimeoutError, BackendUnavailableError, toHttpError } from '@svc/errors';
import type { ToolAnswer, ToolCaller } from './tool-calls';

// Pages that show a tool's answer show its refusals too, with the gateway's status, never as a
// broken page: that includes the gateway itself not answering (the caller throws then).

/** The call's answer, the gateway down or too slow included as an error answer. */
export async function answerOf(
  tools: ToolCaller,
  call: { session: string; projectId: string; tool: string; input: unknown },
): Promise<ToolAnswer> {
  try {
    return await tools.call(call.session, call.projectId, call.tool, call.input);
  } catch (err) {
    if (!(err instanceof BackendUnavailableError || err instanceof BackendTimeoutError)) throw err;
    const { status, body } = toHttpError(err);
    return { ok: false, status, error: { error: body.error, message: body.message } };
  }
}

/** The page's status for an answer: 200 for a result, the gateway's status for a refusal. */
export const pageStatusOf = (answer: ToolAnswer): number => (answer.ok ? 200 : answer.status);

/**
 * Why a tool is refused as unknown or forbidden: to a token, a tool it may not call does not exist
 * (its capability is off for the organization, or its backend is not deployed or not answering).
 */
export const UNAVAILABLE_TOOL_HINT =
  'The gateway treats a tool this project may not call as unknown: its capability is turned off for ' +
  'your organization, or the service behind it is not deployed or not answering.';
