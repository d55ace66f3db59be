import type { z } from 'zod';

// Two fields of which a caller gives exactly one (release.health's version / versions). The 400
// names one field and reads as a sentence after it, like every other input error:
// "version is required when versions is not given", "versions must not be given together with version".

/** A refinement for `.superRefine(...)` of an object schema: exactly one of `first`, `second`. */
export function exactlyOneOf<K extends string>(first: K, second: K) {
  return (input: Partial<Record<K, unknown>>, ctx: z.RefinementCtx): void => {
    const hasFirst = input[first] !== undefined;
    const hasSecond = input[second] !== undefined;
    if (!hasFirst && !hasSecond) {
      ctx.addIssue({ code: 'custom', path: [first], message: `is required when ${second} is not given` });
    } else if (hasFirst && hasSecond) {
      ctx.addIssue({ code: 'custom', path: [second], message: `must not be given together with ${first}` });
    }
  };
}
