import { PayloadTooLargeError, ServiceError, UserInputError } from './errors';

/** How a service words the body parser's refusals: JSON APIs and HTML forms say it differently. */
export interface BodyRefusalWording {
  /** 413: the body is over the limit once inflated, or a form has too many fields. */
  tooLarge: string;
  /** 400: any other refusal of the body (a corrupt gzip, deflate or br body, an aborted upload). */
  unreadable: string;
  /** 400 for a JSON body that does not parse; `unreadable` when not given. */
  notJson?: string;
  /** 400 for an unknown Content-Encoding or charset; `unreadable` when not given. */
  unsupportedEncoding?: string;
  /**
   * Map only errors the body parser marked as its own (a `type`, or zlib's `Z_*` code for a body
   * that does not inflate), leaving any other 4xx error to the caller's error page.
   */
  onlyMarked?: boolean;
}

/**
 * The body parser's refusals in the error hierarchy. Never a 500: the body is the sender's. Returns
 * undefined for anything that is not such a refusal.
 */
export function fromBodyParser(err: unknown, wording: BodyRefusalWording): ServiceError | undefined {
  if (typeof err !== 'object' || err === null || err instanceof ServiceError) return undefined;
  const e = err as { type?: unknown; code?: unknown; status?: unknown; statusCode?: unknown };
  const marked = typeof e.type === 'string' || (typeof e.code === 'string' && e.code.startsWith('Z_'));
  if (wording.onlyMarked && !marked) return undefined;
  if (e.type === 'entity.too.large' || e.type === 'parameters.too.many') {
    return new PayloadTooLargeError(wording.tooLarge);
  }
  if (e.type === 'entity.parse.failed' && wording.notJson) return new UserInputError(wording.notJson);
  const badEncoding = e.type === 'encoding.unsupported' || e.type === 'charset.unsupported';
  if (badEncoding && wording.unsupportedEncoding) return new UserInputError(wording.unsupportedEncoding);
  const status = typeof e.status === 'number' ? e.status : e.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return new UserInputError(wording.unreadable);
  return undefined;
}
