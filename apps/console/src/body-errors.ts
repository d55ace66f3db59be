import { PayloadTooLargeError, type ServiceError, UserInputError } from '@svc/tool-kit';

/**
 * The form parser's refusals in the error hierarchy: a body over the limit once inflated, or with
 * too many fields, is 413; one that cannot be read (a corrupt gzip body, an unknown
 * Content-Encoding or charset) is 400. Never a 500: the body is the sender's.
 */
export function fromBodyParser(err: unknown): ServiceError | undefined {
  const e = err as { type?: unknown; code?: unknown; status?: unknown; statusCode?: unknown } | null;
  if (typeof e !== 'object' || e === null) return undefined;
  // body-parser's own errors carry a `type`; a body that does not inflate, zlib's `Z_*` code.
  const fromParser = typeof e.type === 'string' || (typeof e.code === 'string' && e.code.startsWith('Z_'));
  if (!fromParser) return undefined;
  if (e.type === 'entity.too.large' || e.type === 'parameters.too.many') {
    return new PayloadTooLargeError('The form is too large: at most 256 KB in 200 fields.');
  }
  const status = typeof e.status === 'number' ? e.status : e.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new UserInputError('The form could not be read: send it again from the page.');
  }
  return undefined;
}
