import type { AnyTool } from '@svc/tool-kit';
import { logAudit } from './log-audit';
import { logFileEntries } from './log-file-entries';
import { logListFiles } from './log-list-files';

/** Tools of this group, in catalog order. Each lives in its own file. Capability vis_recall. */
export const recallTools: readonly AnyTool[] = [logListFiles, logFileEntries, logAudit];
