import { FIELD_LIMITS, sanitizeText } from '@svc/tool-kit';
import { analyticsDimensions, DIMENSION_VALUES_MAX, DIMENSIONS, type Dimension } from '@svc/tools-analytics';
import { serve } from '../core-tool';
import { paramsOf, whereOf } from '../sql/filter';
import { lastDays } from '../sql/window';

// analytics.dimensions (docs/semantics.md): event counts per value of each filter dimension in
// one scan (GROUPING SETS), top values by count desc then value. Events without a value (empty
// column) are left out: no filter can select them. Values are attacker-controlled text.

// GROUPING(col) is 0 in the grouping set of `col`: it names the set a row belongs to.
const DIMENSION_OF_ROW = `multiIf(${DIMENSIONS.slice(0, -1)
  .map((d) => `grouping(${d}) = 0, '${d}'`)
  .join(', ')}, '${DIMENSIONS[DIMENSIONS.length - 1]}')`;
const VALUE_OF_ROW = `toString(multiIf(${DIMENSIONS.slice(0, -1)
  .map((d) => `grouping(${d}) = 0, ${d}`)
  .join(', ')}, ${DIMENSIONS[DIMENSIONS.length - 1]}))`;

export const analyticsDimensionsQuery = serve(analyticsDimensions, async (ctx, input) => {
  const w = lastDays(ctx.now, input.days);
  const params = paramsOf(w.filter, ctx.projectId, { top: DIMENSION_VALUES_MAX + 1 });
  const rows = await ctx.ch.query<{ dimension: Dimension; value: string; n: string }>(
    `SELECT ${DIMENSION_OF_ROW} AS dimension, ${VALUE_OF_ROW} AS value, count() AS n
     FROM events
     WHERE ${whereOf(w.filter)}
     GROUP BY GROUPING SETS (${DIMENSIONS.map((d) => `(${d})`).join(', ')})
     HAVING value != ''
     ORDER BY dimension, n DESC, value ASC
     LIMIT {top:UInt32} BY dimension`,
    params,
    { signal: ctx.signal },
  );
  const dimensions = Object.fromEntries(
    DIMENSIONS.map((d) => {
      const values = rows.filter((r) => r.dimension === d);
      return [
        d,
        {
          values: values
            .slice(0, DIMENSION_VALUES_MAX)
            .map((r) => ({ value: sanitizeText(r.value, FIELD_LIMITS.id), count: Number(r.n) })),
          has_more: values.length > DIMENSION_VALUES_MAX,
        },
      ];
    }),
  ) as Record<Dimension, { values: { value: string; count: number }[]; has_more: boolean }>;
  return { window: w.iso, dimensions };
});
