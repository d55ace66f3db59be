import { filesUnder, read } from './repository';

// One error hierarchy: every failure a client can be answered with is a ServiceError from
// @svc/errors, mapped to HTTP once (toHttpError) and to MCP once. A class extending Error anywhere
// else is a second way to fail; the ones below never reach a client as themselves, each for the
// reason given (they are caught and turned into a ServiceError, end a process or a command, or
// only carry control flow inside one module).
const NOT_ANSWERS: Record<string, string> = {
  FetchRefusedError: "identity's OAuth client document fetch: caught and answered as the OAuth error",
  CliError: "identity's `pnpm svc` command line: a message and an exit code, no HTTP",
  Refused: "identity's password throttle: control flow inside one transaction",
  KnownHeadMissed: "identity's audit store: control flow inside one transaction (retried)",
  StoredBefore: "identity's audit store: control flow inside one transaction (a repeat)",
  StoredBytesError: "recall's file reader: caught where the file is read",
  ReadAbandonedError: "recall's read budget: the reader's own stop, never answered",
  InterpolationError: 'self-hosting checks: a compose file that does not interpolate, in tests',
  ProtobufError: "the core's protobuf reader: turned into a 400 by the OTLP decoder",
  TooManyElementsError: "the core's protobuf reader: turned into a 413 by the OTLP decoder",
  PortInUseError: 'the one-process stack: refuses to start',
  AlreadyRunningError: 'the one-process stack: refuses to start',
  OAuthBrowserUnboundError: "the console's OAuth consent: a redirect, caught by its route",
  OAuthOtherBrowserError: "the console's OAuth consent: a page, caught by its route",
  ConfigError: 'configuration refused at start: one message and a non-zero exit',
  MigrationError: 'a database migration that fails ends the start',
  UsageError: "svc-cli's command line: a message and an exit code, no HTTP",
  AnswerWorkersUnavailableError: "tool-server's answer workers: caught and answered as a 503",
  QueryParamError: 'clickhouse: a query built wrongly, a bug answered as an opaque 500',
  QueryCancelledError: 'clickhouse: caught by the caller that cancelled the query',
  EmbeddedEngineMissingError: 'clickhouse: the embedded engine is missing, the start ends',
};

const SHIPPED = [...filesUnder('apps', ['.ts', '.tsx']), ...filesUnder('packages', ['.ts', '.tsx'])].filter(
  (path) => !/\.test\.tsx?$|\/testing\/|\/e2e\/|^packages\/repo-checks\//.test(path),
);

const classesExtendingError = (path: string) =>
  [...read(path).matchAll(/\bclass\s+(\w+)\s+extends\s+Error\b/g)].map((m) => m[1]!);

it('defines error classes outside the one hierarchy only where they never reach a client', () => {
  const offenders = SHIPPED.filter((path) => !path.startsWith('packages/errors/')).flatMap((path) =>
    classesExtendingError(path)
      .filter((name) => !(name in NOT_ANSWERS))
      .map((name) => `${path}: ${name}`),
  );
  expect(offenders).toEqual([]);
});

// Two classes of one name, each answered in its own words: identity's 429 and the console's page
// that reads it back (the console's wording differs and is shown to people).
const TWICE: Record<string, string> = {
  TooManyAttemptsError: "identity's 429 and the console's reading of it, worded for each",
};

it('defines each error class once', () => {
  const where = new Map<string, string[]>();
  for (const path of SHIPPED) {
    for (const m of read(path).matchAll(/\bclass\s+(\w+Error)\b/g)) {
      where.set(m[1]!, [...(where.get(m[1]!) ?? []), path]);
    }
  }
  const twice = [...where]
    .filter(([name, paths]) => paths.length > 1 && !(name in TWICE))
    .map(([name, paths]) => `${name}: ${paths}`);
  expect(twice).toEqual([]);
});

it('maps body-parser refusals in one function', () => {
  const definitions = SHIPPED.filter((path) => /function fromBodyParser\b/.test(read(path)));
  expect(definitions).toEqual(['packages/errors/src/body-parser.ts']);
});
