import { PayloadTooLargeError } from '@svc/errors';

/**
 * Records one request may carry, all types together (OTLP: the records it maps to). What a request
 * costs the core grows with its records; beyond this it is 413 and the sender splits it. Both the
 * OTLP mappings (while they read) and the batch check (before it) hold a request to it.
 */
export const MAX_RECORDS_PER_REQUEST = 20_000;

/** 413 for a request holding `what` ("20001 records", "more than 20000 spans"). */
export function tooManyRecords(what: string): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `The request holds ${what}; at most ${MAX_RECORDS_PER_REQUEST} are taken per request: send them in smaller requests.`,
    { details: { max_records: MAX_RECORDS_PER_REQUEST } },
  );
}
