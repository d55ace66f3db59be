import type { ActiveSpan, SpanScope } from '@svc/sdk-core';

// A page has no AsyncLocalStorage: the active span is a slot set while synchronous code runs in
// it. A request started before the first `await` in `inSpan`'s callback is a child of that span;
// one started after an `await` is not, unless the code passes the span on (`withSpan`).
let current: ActiveSpan | undefined;

export const syncScope: SpanScope = {
  active: () => current,
  run(span, fn) {
    const outer = current;
    current = span;
    try {
      return fn();
    } finally {
      current = outer;
    }
  },
};
