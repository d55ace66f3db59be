import type { LogFilter } from '../logs/log-rows';

/** Constant SQL conditions with `{name:Type}` placeholders; values only in `params`. */
export type RowFilter = LogFilter;

export function combine(...filters: (RowFilter | undefined)[]): RowFilter {
  const out: RowFilter = { where: [], params: {} };
  for (const f of filters) {
    if (!f) continue;
    out.where.push(...f.where);
    Object.assign(out.params, f.params);
  }
  return out;
}

/** `column = value` for a constant column name; undefined (no condition) when value is. */
export function equals(column: string, value: string | undefined): RowFilter | undefined {
  return value === undefined
    ? undefined
    : { where: [`${column} = {eq_${column}:String}`], params: { [`eq_${column}`]: value } };
}

export function whereOf(filter: RowFilter): string {
  return ['project_id = {project_id:String}', ...filter.where].join(' AND ');
}
