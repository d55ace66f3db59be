import { CONDITION_CEILING_MS } from '@svc/standalone/testing';

/**
 * The exporters' request timeout in these tests: the conditions' ceiling, not the SDK's 10 s. On a
 * loaded machine an ingest can take longer, and a timed-out batch is retried or dropped, which the
 * tests would read as a duplicate or a missing span.
 */
export const EXPORT_TIMEOUT_MS = CONDITION_CEILING_MS;
