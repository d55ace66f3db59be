import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { invalidInputError } from '@svc/errors';

// A list's `next_cursor`: where the next page starts, sealed so a client can only hand it back.
// It is an offset into the list's order (every list breaks ties, so the order is stable), bound to
// the tool, the project, the token and every other argument, and it expires. Signed with an HMAC
// whose key is derived from the internal secret the gateway, the stdio server and the backends
// already share: the gateway makes a cursor when it cuts an answer, a backend when its page has
// more, and each opens the other's. Not encrypted: an offset is no secret, only tampering matters.

/** How long a cursor may be used after it was made. */
export const CURSOR_TTL_MS = 60 * 60 * 1000;
/** The deepest offset a cursor may carry: each page reads and drops every row before it. */
export const CURSOR_MAX_OFFSET = 100_000;

/** What a cursor is bound to: the same call, but for the page. */
export interface CursorBinding {
  tool: string;
  projectId: string;
  tokenId: string | null;
  /** The validated input (defaults applied); `cursor` (and a page's `limit`) are left out of the binding. */
  input: Record<string, unknown>;
}

/**
 * Where an answer cut by a result budget goes on (one that is not a list page): each cut list's
 * path (dotted, e.g. `logs.items`) and the index of its first item left out.
 */
export type ListPositions = Record<string, number>;

interface Sealed {
  v: 1;
  t: string;
  p: string;
  k: string | null;
  a: string;
  o: number;
  e: number;
  /** Present on a continuation cursor: the cut lists' positions. */
  r?: ListPositions;
}

/** JSON with object keys in order, so equal arguments make equal text whatever their order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * A page's cursor leaves `limit` unbound (the budget's cut of a page relies on it); a continuation
 * binds it, since the cut lists' positions hold only for answers of the same size.
 */
type CursorKind = 'page' | 'continuation';

function argumentsDigest(input: Record<string, unknown>, kind: CursorKind): string {
  const unbound = (k: string) => k === 'cursor' || (kind === 'page' && k === 'limit');
  const bound = Object.fromEntries(Object.entries(input).filter(([k]) => !unbound(k)));
  return createHash('sha256').update(canonical(bound)).digest('base64url').slice(0, 22);
}

const ANOTHER_CALL = 'belongs to another call: repeat the arguments of the page it came with';

const refused = (tool: string, message: string) => invalidInputError(tool, [{ path: 'cursor', message }]);

/** Seals and opens cursors with a key derived from the deployment's internal secret. */
export class CursorSeal {
  readonly #key: Buffer;
  readonly #now: () => number;

  constructor(internalSecret: string, now: () => number = Date.now) {
    this.#key = Buffer.from(hkdfSync('sha256', internalSecret, 'svc-cursor', 'svc list cursor v1', 32));
    this.#now = now;
  }

  /** The cursor of the page starting at `offset`. */
  seal(binding: CursorBinding, offset: number): string {
    return this.#sealed(binding, offset, undefined);
  }

  /** The cursor that continues a cut answer's lists at `positions`. */
  sealContinuation(binding: CursorBinding, positions: ListPositions): string {
    return this.#sealed(binding, 0, positions);
  }

  /** The offset a cursor carries; a 400 naming `cursor` when it is not one of ours for this call. */
  open(cursor: string, binding: CursorBinding): number {
    const sealed = this.#opened(cursor, binding, 'page');
    if (sealed.r !== undefined) throw refused(binding.tool, ANOTHER_CALL);
    return sealed.o;
  }

  /** The positions a continuation cursor carries; a 400 naming `cursor` when it is not one for this call. */
  openContinuation(cursor: string, binding: CursorBinding): ListPositions {
    const sealed = this.#opened(cursor, binding, 'continuation');
    if (sealed.r === undefined) throw refused(binding.tool, ANOTHER_CALL);
    return sealed.r;
  }

  #sealed(binding: CursorBinding, offset: number, positions: ListPositions | undefined): string {
    const sealed: Sealed = {
      v: 1,
      t: binding.tool,
      p: binding.projectId,
      k: binding.tokenId,
      a: argumentsDigest(binding.input, positions ? 'continuation' : 'page'),
      o: offset,
      e: this.#now() + CURSOR_TTL_MS,
      ...(positions ? { r: positions } : {}),
    };
    const body = Buffer.from(JSON.stringify(sealed)).toString('base64url');
    return `${body}.${this.#mac(body)}`;
  }

  #opened(cursor: string, binding: CursorBinding, kind: CursorKind): Sealed {
    const [body, mac, extra] = cursor.split('.');
    if (!body || !mac || extra !== undefined || !this.#macMatches(body, mac)) {
      throw refused(binding.tool, 'is not a cursor this service made (pass next_cursor as it came)');
    }
    const sealed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Sealed;
    const sameCall =
      sealed.t === binding.tool &&
      sealed.p === binding.projectId &&
      sealed.k === binding.tokenId &&
      sealed.a === argumentsDigest(binding.input, kind);
    if (!sameCall) throw refused(binding.tool, ANOTHER_CALL);
    if (sealed.e <= this.#now()) throw refused(binding.tool, 'has expired: start again without a cursor');
    return sealed;
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest('base64url');
  }

  #macMatches(body: string, mac: string): boolean {
    const expected = Buffer.from(this.#mac(body));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/** A list page as a tool answers it. */
interface ListPage {
  items: unknown[];
  has_more: boolean;
  next_cursor?: string;
}

/** Whether an answer is a list page (`listOf` in tool-kit). */
export function isListPage(answer: unknown): answer is ListPage {
  return (
    answer !== null &&
    typeof answer === 'object' &&
    Array.isArray((answer as ListPage).items) &&
    typeof (answer as ListPage).has_more === 'boolean'
  );
}

/** The cursor of the page starting at `next`; none past the deepest offset a cursor may carry. */
export function pageCursorAt(seal: CursorSeal, binding: CursorBinding, next: number): string | undefined {
  return next > CURSOR_MAX_OFFSET ? undefined : seal.seal(binding, next);
}

/**
 * The page with `next_cursor` set when more follow it: its `length` entries (a list's items,
 * trace.get's spans) started at `offset`. A page of none gets no cursor: it would point at itself.
 */
export function withNextCursor<T extends { has_more?: unknown }>(
  page: T,
  length: number,
  seal: CursorSeal,
  binding: CursorBinding,
  offset: number,
): T {
  if (page.has_more !== true || length === 0) return page;
  const cursor = pageCursorAt(seal, binding, offset + length);
  return cursor === undefined ? page : { ...page, next_cursor: cursor };
}
