/**
 * The text content of an MCP tool result: what a model reads when its client ignores
 * `structuredContent` (which stays the exact JSON). Written to cost few tokens and lose nothing a
 * model needs: no indentation; a top-level field on a line of its own (`key: value`); a top-level
 * list of objects as a table, a header line naming the columns, then one line per item, cells
 * separated by `|`. A cell or value that is an object or a list is compact JSON; a string is
 * written bare unless it could be misread (it holds the separator or a line break, is empty, has
 * edge spaces, or looks like a number, a boolean, null or JSON), then it is a JSON string. An empty
 * cell is a field the item does not have.
 *
 * ```
 * limit: 50
 * has_more: false
 * items[2]: timestamp|level|message
 * 2026-01-02T03:04:05Z|error|"payment failed | retry"
 * 2026-01-02T03:04:01Z|info|checkout opened
 * ```
 */
export function compactText(value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return JSON.stringify(value);
  const lines: string[] = [];
  for (const [key, field] of Object.entries(value)) {
    if (isTable(field)) lines.push(...table(key, field));
    else lines.push(`${key}: ${cell(field)}`);
  }
  return lines.join('\n');
}

const SEPARATOR = '|';

type Row = Record<string, unknown>;

function isTable(field: unknown): field is Row[] {
  return (
    Array.isArray(field) &&
    field.length > 0 &&
    field.every((item) => item !== null && typeof item === 'object' && !Array.isArray(item))
  );
}

function table(key: string, rows: Row[]): string[] {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const header = `${key}[${rows.length}]: ${columns.join(SEPARATOR)}`;
  return [header, ...rows.map((row) => columns.map((c) => (c in row ? cell(row[c]) : '')).join(SEPARATOR))];
}

/** Strings that would read as something else when written bare. */
const AMBIGUOUS = /^(?:-?\d[\d.eE+-]*|true|false|null|[[{"].*)$/s;

function cell(value: unknown): string {
  if (typeof value === 'string') {
    const bare =
      value !== '' &&
      value.trim() === value &&
      !value.includes(SEPARATOR) &&
      !/[\n\r]/.test(value) &&
      !AMBIGUOUS.test(value);
    return bare ? value : JSON.stringify(value);
  }
  if (value === undefined) return '';
  return JSON.stringify(value);
}
