import { UserInputError } from '@svc/errors';
import { drained } from '@svc/tool-server/http-writes';
import type { Response } from 'express';
import { type FileProblem, parseEntry, parseProblem } from '../file-codec';
import { scanFile } from '../file-reader';
import type { StoredBytes } from '../file-store';
import { createPacer } from '../read-budget';
import { wellFormedJsonText } from '../well-formed-json';

export const unreadable = (problem: FileProblem) =>
  new UserInputError('The file cannot be read to its end.', { details: problem });

/**
 * A download in two passes over the file, each a chunk at a time: the first parses every line
 * (a file that cannot be read to its end is refused before a byte is sent), the second writes the
 * lines out as the device wrote them, as fast as the client takes them. Memory: a chunk and a
 * line, whatever the file's size. The lines are UTF-8 text (bytes that are not became U+FFFD) and
 * a JSON escape of a lone surrogate becomes \ufffd, so a client never parses ill-formed text.
 */
export async function streamDownload(
  bytes: StoredBytes,
  key: Buffer,
  res: Response,
  signal: AbortSignal,
  fileName: string,
): Promise<void> {
  const pacer = createPacer({ signal });
  let problem: FileProblem | undefined;
  const checked = await scanFile(
    bytes,
    key,
    (line, text) => {
      if (parseEntry(text, line)) return 'continue';
      problem = parseProblem(line);
      return 'stop';
    },
    { afterLine: 0, pacer },
  );
  if (checked.end === 'problem') problem = checked.problem;
  if (problem) throw unreadable(problem);

  res
    .status(200)
    .type('application/x-ndjson')
    .set('content-disposition', `attachment; filename="${fileName}"`);
  let out: string[] = [];
  const written = await scanFile(
    bytes,
    key,
    (_line, text) => {
      out.push(`${wellFormedJsonText(text.trim())}\n`);
      return 'continue';
    },
    {
      afterLine: 0,
      pacer,
      afterChunk: async () => {
        if (out.length === 0) return;
        const text = out.join('');
        out = [];
        if (!res.write(text)) await drained(res);
        pacer.check();
      },
    },
  );
  // The bytes were read to the end a moment ago: a problem now is the store's, and the client
  // must not take a cut download for a whole one.
  if (written.end !== 'eof') {
    res.destroy();
    return;
  }
  res.end(out.join(''));
}
