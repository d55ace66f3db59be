export interface InvalidationTiming {
  /** How often each stream gets a heartbeat (and the log is re-read, whatever NOTIFY did). */
  heartbeatMs: number;
  /** How long an acknowledgement keeps a gateway's lease alive, on identity's clock. */
  leaseMs: number;
  /** How often a waiting revoke looks at the acknowledgements. */
  pollMs: number;
}

export const DEFAULT_INVALIDATION_TIMING: InvalidationTiming = {
  heartbeatMs: 1000,
  leaseMs: 5000,
  pollMs: 5,
};
