import type { AuditEntry, AuditSink } from '@svc/audit';
import type { BackendClient } from '@svc/backend-client';
import { z } from 'zod';

const writtenAnswer = z.object({ written: z.number().int().nonnegative() });

/**
 * Writes tool-call audit records to identity (POST /internal/v1/audit), which answers 201 only
 * after commit. Resolves only when identity confirms every record; anything else throws, and the
 * executor then fails the call with 503 so no data leaves unaudited.
 */
export function createHttpAuditSink(client: BackendClient): AuditSink {
  return {
    async write(entries: AuditEntry[]): Promise<void> {
      if (entries.length === 0) return;
      const answer = writtenAnswer.parse(
        await client.postJson(
          '/internal/v1/audit',
          { records: entries },
          { requestId: entries[0]!.request_id },
        ),
      );
      if (answer.written !== entries.length) {
        throw new Error(`audit store confirmed ${answer.written} of ${entries.length} records`);
      }
    },
  };
}
