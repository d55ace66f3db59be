// The thresholds of a circuit breaker: the backend's own (opossum) and each project's
// (project-breakers.ts) open at the same ones.

export interface BreakerOptions {
  /** Calls in the rolling window before the error rate may open the breaker. */
  volumeThreshold: number;
  errorThresholdPercentage: number;
  /** Open -> half-open after this long; also the Retry-After of a fail-fast answer. */
  resetTimeoutMs: number;
  rollingCountTimeoutMs: number;
}

/**
 * The breaker every backend client gets unless a test asks for another: opens at 50% errors over
 * at least 10 calls in a 10 s window, half-opens after 10 s (also the Retry-After of a fail-fast).
 */
export const DEFAULT_BREAKER: BreakerOptions = {
  volumeThreshold: 10,
  errorThresholdPercentage: 50,
  resetTimeoutMs: 10_000,
  rollingCountTimeoutMs: 10_000,
};
