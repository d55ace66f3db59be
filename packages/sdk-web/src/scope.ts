import { type ActiveSpan, createSyncScope, type SpanScope } from '@svc/sdk-core';

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

// A page has no AsyncLocalStorage: the active span follows synchronous code (createSyncScope),
// and an error thrown out of a span is noted with it.
export const syncScope: SpanScope = createSyncScope(noteThrown);
