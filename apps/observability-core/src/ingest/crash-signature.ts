import { createHash } from 'node:crypto';

interface FrameLike {
  function: string;
  in_app?: boolean;
}

/**
 * The issue a crash belongs to, when the client did not send one: the first 16 lowercase hex
 * characters of SHA-256 over
 *
 *   error_type + "\n" + f1 + "\n" + f2 + "\n" + f3
 *
 * where f1..f3 are the function names of the top three in-app frames (frames are listed top of
 * stack first; fewer than three in-app frames: as many as there are). A crash without any in-app
 * frame uses its top three frames instead, so third-party crashes still group by where they
 * happened. Line numbers and addresses are left out on purpose: they move between builds while
 * the issue stays the same.
 */
export function crashSignature(errorType: string, frames: readonly FrameLike[]): string {
  const inApp = frames.filter((f) => f.in_app === true);
  const top = (inApp.length > 0 ? inApp : frames).slice(0, 3).map((f) => f.function);
  return createHash('sha256')
    .update([errorType, ...top].join('\n'), 'utf8')
    .digest('hex')
    .slice(0, 16);
}
