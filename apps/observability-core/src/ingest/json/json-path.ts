// Where in a request body a problem is, written as a JSON path (`resourceSpans[0].spans[3].traceId`,
// `events[2].properties["my key"]`), so that every 400 names the field it is about.

export type PathSegment = string | number;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Longest path shown; a deeper one keeps its start and its end. */
const MAX_PATH_CHARS = 400;

export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment.length > 64 ? `${segment.slice(0, 64)}…` : segment)}]`;
  }
  if (out.length <= MAX_PATH_CHARS) return out;
  return `${out.slice(0, MAX_PATH_CHARS / 2)}…${out.slice(-MAX_PATH_CHARS / 2)}`;
}

/**
 * A position in a body, as a chain to its parent: a loop makes one per container it enters (never
 * per value), and the text is only written when a problem is reported.
 */
export class BodyPath {
  /** The body itself; paths start at its first field. */
  static readonly ROOT = new BodyPath(undefined, undefined);

  private constructor(
    readonly parent: BodyPath | undefined,
    readonly segment: PathSegment | undefined,
  ) {}

  child(segment: PathSegment): BodyPath {
    return new BodyPath(this, segment);
  }

  segments(): PathSegment[] {
    const out: PathSegment[] = [];
    for (let p: BodyPath | undefined = this; p; p = p.parent)
      if (p.segment !== undefined) out.push(p.segment);
    return out.reverse();
  }

  toString(): string {
    return formatPath(this.segments());
  }
}
