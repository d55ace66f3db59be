import { ACTOR_HEADER, UserInputError } from '@svc/tool-kit';
import { z } from 'zod';

const actor = z.strictObject({
  token_id: z.string().max(200).nullable(),
  user_id: z.string().max(200).nullable(),
  transport: z.enum(['mcp', 'rest', 'stdio']),
});
export type Actor = z.infer<typeof actor>;

/**
 * Who the gateway or stdio server calls for (X-Svc-Actor). A view is audited with it, so a call
 * without one is refused rather than recorded as nobody.
 */
export function actorOf(header: (name: string) => string | undefined): Actor {
  const raw = header(ACTOR_HEADER);
  let parsed: unknown;
  try {
    parsed = raw === undefined ? undefined : JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  const result = actor.safeParse(parsed);
  if (!result.success)
    throw new UserInputError(`A valid ${ACTOR_HEADER} header naming the caller is required.`);
  return result.data;
}
