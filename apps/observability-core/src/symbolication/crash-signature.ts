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
 *
 * Which function names: when the project already has a symbol file for the crash's platform and
 * release (a web source map, a Breakpad file), ingest symbolicates first
 * (symbolicator.ts `prepareIngest`) and the names are the original ones from the
 * symbol file, so a minified web crash (`a`, `t`, `Qe` that change with every build) gets the same
 * signature in every release whose map was uploaded before its crashes. Frames that do not map
 * keep their name as sent. Without a symbol file at ingest time the names are used as sent, and
 * for minified code that means one issue per build: upload the source maps of a release before it
 * ships. The signature is settled at ingest and never recomputed (a later upload or
 * crash.symbolicate does not move a crash to another issue), so counts, recurrence and trends over
 * past crashes stay deterministic. A client-sent signature always wins.
 */
export function crashSignature(errorType: string, frames: readonly FrameLike[]): string {
  const inApp = frames.filter((f) => f.in_app === true);
  const top = (inApp.length > 0 ? inApp : frames).slice(0, 3).map((f) => f.function);
  return createHash('sha256')
    .update([errorType, ...top].join('\n'), 'utf8')
    .digest('hex')
    .slice(0, 16);
}
