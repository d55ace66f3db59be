import type { ActiveSpan, SpanScope } from './context';

/**
 * The active span where there is no AsyncLocalStorage (a web page, React Native): a slot set while
 * synchronous code runs in it. A request started before the first `await` in `inSpan`'s callback
 * is a child of that span; one started after an `await` is not, unless the code passes the span on
 * (`withSpan`). `thrown` is told of an error thrown out of a span before it propagates.
 */
export function createSyncScope(thrown?: (error: unknown, span: ActiveSpan) => void): SpanScope {
  let current: ActiveSpan | undefined;
  return {
    active: () => current,
    run(span, fn) {
      const outer = current;
      current = span;
      try {
        return fn();
      } catch (error) {
        thrown?.(error, span);
        throw error;
      } finally {
        current = outer;
      }
    },
  };
}
