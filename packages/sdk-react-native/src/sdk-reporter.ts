import type { SdkError } from './sdk-types';
import { describeThrown } from './stack-frames';

/** How the SDK tells the app what it could not do, without ever throwing into it. */
export interface SdkReporter {
  report(error: SdkError): void;
  /** `fn` that reports what it throws instead of throwing it. */
  guard<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void;
  /** A record left out as invalid: counted and reported. */
  invalid(message: string): void;
  storageFailed(err: unknown): void;
  readonly counts: { invalid: number; earlyDropped: number };
}

export function createReporter(onError: ((error: SdkError) => void) | undefined): SdkReporter {
  const counts = { invalid: 0, earlyDropped: 0 };
  const report = (error: SdkError) => {
    try {
      onError?.(error);
    } catch {
      // The app's callback must not break the SDK.
    }
  };
  return {
    report,
    guard:
      <A extends unknown[]>(fn: (...args: A) => void) =>
      (...args: A): void => {
        try {
          fn(...args);
        } catch (err) {
          report({ reason: 'internal', message: describeThrown(err).message });
        }
      },
    invalid(message) {
      counts.invalid++;
      report({ reason: 'invalid', message });
    },
    storageFailed: (err) => report({ reason: 'storage', message: `storage: ${describeThrown(err).message}` }),
    counts,
  };
}
