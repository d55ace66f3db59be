import type { CallActor } from '@svc/tool-kit';
import { serveWith } from '@svc/tool-server/serve';
import type { RecallContext } from '../context';
import type { ReadLimits } from '../read-budget';
import type { ReadSlots } from '../read-slots';

/** What a recall tool gets with its input: the service, the project and the caller. */
export interface RecallToolCall {
  ctx: RecallContext;
  projectId: string;
  actor: CallActor;
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
  reads: FileReads;
  /** Where a list's page starts: the offset its cursor carries (0 without one). */
  offset: number;
}

/** The limits of file reads and the slots they take turns in, shared by every call. */
export interface FileReads {
  limits: ReadLimits;
  slots: ReadSlots;
}

/** Binds a recall tool's handler to its published definition (from @svc/tools-recall). */
export const serve = serveWith<RecallToolCall>();

/** One page of a list: `limit + 1` rows were read, so one more says there is more. */
export const listPage = <T>(rows: T[], limit: number) => ({
  items: rows.slice(0, limit),
  limit,
  has_more: rows.length > limit,
});
