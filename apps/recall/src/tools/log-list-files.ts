import { logListFiles } from '@svc/tools-recall';
import { listFiles, toRecallFile } from '../store/files';
import { listPage, serve } from './recall-call';

/** log.list_files: the project's device log files, newest first. */
export const logListFilesTool = serve(logListFiles, async ({ ctx, projectId, offset }, input) => {
  const rows = await listFiles(ctx.db, projectId, input, input.limit + 1, offset);
  return listPage(rows.map(toRecallFile), input.limit);
});
