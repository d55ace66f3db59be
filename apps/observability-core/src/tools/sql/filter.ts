// Conditions every query builds the same way: constant SQL with `{name:Type}` placeholders, and the
// values only in `params`, so nothing a caller sends is ever spliced into SQL text.

export interface SqlFilter {
  where: string[];
  params: Record<string, unknown>;
}

export const NO_FILTER: SqlFilter = Object.freeze({ where: [], params: {} }) as SqlFilter;

/** All conditions of all filters (AND); undefined ones are skipped. */
export function combine(...filters: (SqlFilter | undefined)[]): SqlFilter {
  const out: SqlFilter = { where: [], params: {} };
  for (const f of filters) {
    if (!f) continue;
    out.where.push(...f.where);
    Object.assign(out.params, f.params);
  }
  return out;
}

/** `column = value` for a constant column name; no condition when the value is undefined. */
export function equals(column: string, value: string | undefined): SqlFilter | undefined {
  if (value === undefined) return undefined;
  const param = `eq_${column}`;
  return { where: [`${column} = {${param}:String}`], params: { [param]: value } };
}

/** `column = value`, always present: for the key of a lookup. */
export function equalsKey(column: string, value: string): SqlFilter {
  return equals(column, value)!;
}

/** The WHERE clause of a project's rows: the project first (every table is ordered by it). */
export function whereOf(filter: SqlFilter): string {
  return ['project_id = {project_id:String}', ...filter.where].join(' AND ');
}

/** The bound values of `whereOf(filter)` for one project, plus any extra parameters. */
export function paramsOf(
  filter: SqlFilter,
  projectId: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { ...filter.params, ...extra, project_id: projectId };
}
