import { filesUnder, read } from './repository';

// Helpers every part of the stack needs once, each with one home: a second copy drifts from the
// first (a check, a wording, a retry) and a fix lands in only one of them. Each name here is
// declared (function, const, class) in exactly one shipped file; the rest import it from there.
const ONE_HOME: Record<string, string> = {
  pageOf: 'tool-kit: a list page of `limit` out of limit + 1 rows (identity and the core)',
  fetchFor: 'tool-kit: the rows a page of `limit` reads',
  queryPage: "the core's list query, shared by its tool groups",
  internalSecretCheck: 'tool-server: the one comparison of the internal secret',
  requireInternalSecret: 'tool-server: the middleware every internal route mounts',
  fromBodyParser: 'errors: a body parser refusal as a ServiceError',
  drained: "tool-server: waits until a response's bytes are written",
  internalToolRoutes: 'tool-server: the one way a service mounts its internal tool endpoints',
  serveWith: 'tool-server: the typed binding of a tool to its handler',
  createToolBackends: "backend-client: the tool backends' clients and health monitor (gateway, stdio)",
  runService: 'config: how every main.ts starts and stops',
  metricsPrefix: "metrics: every service's metric prefix",
  traceXhr: 'sdk-core: XMLHttpRequest client spans (web and React Native)',
  createSyncScope: 'sdk-core: the active span without async context (web and React Native)',
  DrainLoop: "sdk-react-native: the outbox's and recall's drain with backoff",
  ingestSignature: 'sdk-core: the v1 signature of an ingest body (every SDK, the CLI, ingest-auth)',
  MorePager: 'console: the "more match than shown" pager',
};

const SHIPPED = [...filesUnder('apps', ['.ts', '.tsx']), ...filesUnder('packages', ['.ts', '.tsx'])].filter(
  (path) => !/\.test\.tsx?$|\/testing\/|\/e2e\/|^packages\/repo-checks\//.test(path),
);

const declares = (text: string, name: string) =>
  new RegExp(`(?:function\\*?|const|let|class|interface)\\s+${name}\\b`).test(text);

it.each(Object.keys(ONE_HOME))('declares %s in one shipped file', (name) => {
  const homes = SHIPPED.filter((path) => declares(read(path), name));
  expect({ name, homes: homes.length === 1 ? 'one' : homes }).toEqual({ name, homes: 'one' });
});
