import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { filesUnder, ROOT } from './repository';

// One layout for tool tests: a tool's test sits beside the tool, `x.ts` + `x.test.ts` (or
// `x.<aspect>.test.ts`, e.g. `x.property.test.ts`); a group's test sits beside `toolset.ts`. A
// reader looking for what pins a tool finds it next to it, not in a file named for the group.
const TOOL_FOLDERS = [
  ...filesUnder('packages', ['toolset.ts'])
    .filter((f) => /^packages\/tools-[a-z]+\/src\/toolset\.ts$/.test(f))
    .map((f) => dirname(f)),
  'apps/observability-core/src/tools',
  'apps/recall/src/tools',
  'apps/copilot/src/tools',
];

// Tests of several tools at once over one stored data set (a chDB harness per file costs tens of
// seconds), each with the reason it is not beside one tool.
const ACROSS_TOOLS: Record<string, string> = {
  'apps/observability-core/src/tools/hostile-rows.test.ts':
    'every tool the core serves over hostile stored rows',
  'apps/observability-core/src/tools/record-keys.test.ts':
    'prototype-named keys through ingest and every reader',
  'apps/observability-core/src/tools/trace/large-trace.test.ts':
    'every list of a project holding one huge trace',
  'apps/observability-core/src/tools/users/hostile-content.test.ts':
    'hostile text through the user, session, tracking and feedback tools',
  'apps/observability-core/src/tools/analytics/track-and-feedback.test.ts':
    'track.recent, track.stats and feedback.search over one data set',
  'apps/observability-core/src/tools/crash/crash-queries.test.ts':
    'the crash group over one ingested data set',
  'apps/observability-core/src/tools/logs/log-queries.test.ts': 'the log group over one ingested data set',
  'apps/observability-core/src/tools/users/user-queries.test.ts':
    'user.detail and session.detail over one data set',
};

/** The file a test pins: `x.test.ts` and `x.<aspect>.test.ts` pin `x.ts`. */
const testedFile = (test: string) =>
  join(dirname(test), `${basename(test, '.test.ts').replace(/\.[a-z-]+$/, '')}.ts`);

describe('tool tests', () => {
  const tests = TOOL_FOLDERS.flatMap((d) => filesUnder(d, ['.test.ts']));

  it('are found in every tool folder', () => {
    expect(TOOL_FOLDERS.length).toBeGreaterThan(8);
    expect(tests.length).toBeGreaterThan(40);
  });

  it('sit beside the file they test (or say why they test several tools)', () => {
    const astray = tests.filter((t) => !(t in ACROSS_TOOLS) && !existsSync(join(ROOT, testedFile(t))));
    expect(astray).toEqual([]);
  });

  it('list only tests that exist and test no single file', () => {
    const stale = Object.keys(ACROSS_TOOLS).filter(
      (t) => !existsSync(join(ROOT, t)) || existsSync(join(ROOT, testedFile(t))),
    );
    expect(stale).toEqual([]);
  });
});
