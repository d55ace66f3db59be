import { sanitizeAttributes, sanitizeOptional } from '@svc/tool-kit';
import { type ApmSample, apmSearch } from '@svc/tools-apm';
import { isoFromMs } from '../../storage/time';
import { serve } from '../core-tool';
import { combine, equals } from '../sql/filter';
import { queryPage } from '../sql/page';
import { containsAny } from '../sql/text-match';
import { METRIC_VALUE_SQL } from '../stored-values';

interface SampleRow {
  ts: string;
  name: string;
  value: number;
  unit: string;
  platform: string;
  app_version: string;
  session_id: string;
  user_id: string;
  attributes: Record<string, string>;
}

/** The attributes as `search` sees them: one `key=value` line per attribute. */
const ATTRIBUTES_TEXT =
  "arrayStringConcat(arrayMap((k, v) -> concat(k, '=', v), mapKeys(attributes), mapValues(attributes)), '\\n')";

/** The ids as `search` sees them, like attributes: `session_id=<id>`, nothing when the sample has none. */
const idText = (column: string) => `if(${column} = '', '', concat('${column}=', ${column}))`;

/** Where `search` looks; the ids let the memory-growth view select one session's samples. */
const SEARCHED = ['name', ATTRIBUTES_TEXT, idText('session_id'), idText('user_id')];

/** Newest first; ties by name, session, value, so pages are stable. */
export const apmSearchQuery = serve(apmSearch, async (ctx, input) => {
  const search = input.search === undefined ? undefined : containsAny(SEARCHED, [input.search], 'search');
  const filter = combine(equals('name', input.name), search);
  return queryPage(
    ctx,
    {
      columns: `toUnixTimestamp64Milli(timestamp) AS ts, name, ${METRIC_VALUE_SQL} AS value, unit, platform, app_version, session_id,
       user_id, attributes`,
      from: 'metrics',
      filter,
      orderBy: 'timestamp DESC, name ASC, session_id ASC, metrics.value ASC',
      limit: input.limit,
    },
    toSample,
  );
});

function toSample(row: SampleRow): ApmSample {
  return {
    timestamp: isoFromMs(row.ts),
    name: sanitizeOptional(row.name) ?? '',
    value: row.value,
    unit: sanitizeOptional(row.unit),
    platform: sanitizeOptional(row.platform),
    app_version: sanitizeOptional(row.app_version),
    session_id: sanitizeOptional(row.session_id),
    user_id: sanitizeOptional(row.user_id),
    attributes: sanitizeAttributes(row.attributes),
  };
}
