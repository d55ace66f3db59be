export { logAudit, logAuditInput, logAuditOutput, RECALL_ACTIONS } from './log-audit';
export { fileProblem, logFileEntries, logFileEntriesInput, logFileEntriesOutput } from './log-file-entries';
export { logListFiles, logListFilesInput, logListFilesOutput } from './log-list-files';
export { fileId, type RecallFile, recallFile } from './recall-file';
export { recallTools } from './toolset';
