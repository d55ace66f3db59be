import type { ServerResponse } from 'node:http';

/**
 * Resolves when the client took what was written (`drain`), or went away (`close`): a writer that
 * got `false` from `res.write` waits on it before writing more, so an answer streamed to a slow
 * client holds a chunk, not the whole answer.
 */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
