// Query parameters written into the SQL text as literals, for embedded chDB only.
//
// Why: chdb-node runs every parameterized query of the process through one chain, one at a time
// (its libchdb sets and clears bound parameters per call without isolating connections, and two
// at once corrupt each other), while plain queries on different sessions run in parallel: two bound
// queries on two sessions take as long as two in a row, written as literals as long as one
// (docs/decisions.md, "Fair sharing of the core").
//
// The substitution is the one ClickHouse itself does with a bound parameter
// (ReplaceQueryParameterVisitor): a String parameter becomes a string literal, any other type
// `_CAST(<literal>, '<type>')`, so a placeholder is valid exactly where a bound one is. Values are
// never spliced as SQL: every string is escaped into a quoted literal, every number is checked to
// be one. A server keeps real binding (client.ts); render-params.test.ts checks the two agree.

export class QueryParamError extends Error {}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A string as a ClickHouse quoted literal: backslash escapes, control characters as \xHH. */
export function quoteString(value: string): string {
  let out = "'";
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === "'") out += "\\'";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}'`;
}

function literal(value: unknown, name: string): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return quoteString(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'nan';
    if (value === Number.POSITIVE_INFINITY) return 'inf';
    if (value === Number.NEGATIVE_INFINITY) return '-inf';
    // Negative numbers in parentheses: `-1` after a `-` in the SQL would read as `--`, a comment.
    return value < 0 || Object.is(value, -0) ? `(${String(value)})` : String(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map((v) => literal(v, name)).join(', ')}]`;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new QueryParamError(`query parameter ${name}: invalid date`);
    // As the client sends it to a server: seconds since the epoch, parsed without a time zone.
    return quoteString((value.getTime() / 1000).toFixed(3));
  }
  throw new QueryParamError(`query parameter ${name}: unsupported value of type ${typeof value}`);
}

/** What a placeholder `{name:Type}` becomes for `value`. */
function substitute(name: string, type: string, value: unknown): string {
  if (type === 'String')
    return literal(typeof value === 'number' || typeof value === 'bigint' ? String(value) : value, name);
  return `_CAST(${literal(value, name)}, ${quoteString(type)})`;
}

/** Index just past the quoted run that starts at `start` (quote char at `start`). */
function skipQuoted(sql: string, start: number): number {
  const quote = sql[start];
  let i = start + 1;
  while (i < sql.length) {
    const ch = sql[i];
    if (ch === '\\') i += 2;
    else if (ch === quote && sql[i + 1] === quote) i += 2;
    else if (ch === quote) return i + 1;
    else i += 1;
  }
  return i;
}

/**
 * `sql` with every `{name:Type}` placeholder outside string literals, quoted identifiers and
 * comments replaced by the literal of `params[name]`. A missing parameter is an error (NULL for a
 * Nullable type), as on a server.
 */
export function renderQueryParams(sql: string, params: Record<string, unknown>): string {
  let out = '';
  let i = 0;
  let copied = 0;
  while (i < sql.length) {
    const ch = sql[i];
    if (ch === "'" || ch === '"' || ch === '`') {
      i = skipQuoted(sql, i);
    } else if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2;
    } else if (ch === '{') {
      const close = sql.indexOf('}', i);
      const body = close === -1 ? '' : sql.slice(i + 1, close);
      const colon = body.indexOf(':');
      const name = colon === -1 ? '' : body.slice(0, colon).trim();
      if (NAME.test(name)) {
        const type = body.slice(colon + 1).trim();
        if (!Object.hasOwn(params, name) && !/^Nullable\(/.test(type)) {
          throw new QueryParamError(`query parameter ${name} is not set`);
        }
        out += sql.slice(copied, i) + substitute(name, type, params[name]);
        i = close + 1;
        copied = i;
      } else {
        // A map literal or anything else in braces: not a placeholder.
        i += 1;
      }
    } else {
      i += 1;
    }
  }
  return out + sql.slice(copied);
}
