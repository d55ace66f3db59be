import type { ActiveSpan, SpanScope } from '@svc/sdk-core';

// A page has no AsyncLocalStorage: the active span is a slot set while synchronous code runs in
// it. A request started before the first `await` in `inSpan`'s callback is a child of that span;
// one started after an `await` is not, unless the code passes the span on (`withSpan`).
let current: ActiveSpan | undefined;

/**
 * The span an exception was first thrown out of. An uncaught error reaches the page's `error`
 * event after the stack has unwound, when no span is active any more: its crash report finds the
 * trace here.
 */
export const thrownIn = new WeakMap<object, ActiveSpan>();

/** Notes `span` as where `error` was thrown, unless an inner span was noted first. */
export function noteThrown(error: unknown, span: ActiveSpan): void {
  if (typeof error === 'object' && error !== null && !thrownIn.has(error)) thrownIn.set(error, span);
}

export const syncScope: SpanScope = {
  active: () => current,
  run(span, fn) {
    const outer = current;
    current = span;
    try {
      return fn();
    } catch (error) {
      noteThrown(error, span);
      throw error;
    } finally {
      current = outer;
    }
  },
};
