/** A mistake in what the CLI was asked to do (exit code 2): bad arguments, no files, unreadable files. */
export class UsageError extends Error {
  override name = 'UsageError';
}
