// The views and the tools each one draws. A tool names its view in its definition's `_meta`
// (ui.resourceUri); hosts without MCP Apps support ignore it and read the text answer as before.

export const VIEW_NAMES = [
  'trace-waterfall',
  'daily-trend',
  'operations',
  'funnel',
  'retention',
  'release-health',
  'memory-growth',
] as const;

export type ViewName = (typeof VIEW_NAMES)[number];

export interface ViewDefinition {
  name: ViewName;
  /** The resource's title (resources/list) and the HTML document's. */
  title: string;
  /** The tools whose structuredContent this view draws. */
  tools: readonly string[];
}

export const VIEWS: readonly ViewDefinition[] = [
  { name: 'trace-waterfall', title: 'Trace waterfall', tools: ['trace.get'] },
  { name: 'daily-trend', title: 'Daily trend and distribution', tools: ['crash.stats', 'track.stats'] },
  { name: 'operations', title: 'Latency and errors per operation', tools: ['trace.aggregate'] },
  { name: 'funnel', title: 'Conversion funnel', tools: ['analytics.funnel'] },
  {
    name: 'retention',
    title: 'Retention curve and cohorts',
    tools: ['analytics.retention', 'analytics.cohorts'],
  },
  { name: 'release-health', title: 'Release health side by side', tools: ['release.health'] },
  { name: 'memory-growth', title: 'Sessions with growing memory', tools: ['apm.memory_growth'] },
];

/** The extension's MIME type of an MCP App's HTML resource. */
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';

/** Each view's HTML document stays under this (the whole bundle: markup, script and styles). */
export const VIEW_SIZE_BUDGET_BYTES = 16 * 1024;

export const viewUri = (name: ViewName): string => `ui://observability/${name}.html`;
