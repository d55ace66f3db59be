import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type DemoRecall, generateDemoRecall } from '@svc/demo-data';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { bearer, callBoth, callRest, connectMcp } from './support';

// The recall group on `pnpm start`'s stack: the demo's device log files, read through MCP and REST
// alike, every read in the recall audit trail with who read it and how.

let stack: SpawnedStack;
let mcp: Client;
let token: string;
let recall: DemoRecall;

beforeAll(async () => {
  stack = await spawnStack();
  token = stack.ready.token!;
  recall = generateDemoRecall(stack.ready.demo!);
  mcp = await connectMcp(stack.ready.urls.mcp, bearer(token));
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await mcp?.close();
  await stack?.dispose();
});

const both = (tool: string, args: Record<string, unknown>) =>
  callBoth(stack.ready.urls.gateway, mcp, bearer(token), tool, args);

interface FileItem {
  file_id: string;
  file_name: string;
  user_id: string;
  session_id: string;
}

describe('recall on the standalone stack', () => {
  it('says the recall group is live', () => {
    expect(stack.ready.groups).toEqual({ recall: 'live', verify: 'live' });
  });

  it("log.list_files: the demo's files, newest upload first, by user and by fuzzy name", async () => {
    const { rest, mcp: viaMcp } = await both('log.list_files', {});
    expect(viaMcp).toEqual(rest);
    const items = rest.items as FileItem[];
    expect(items.map((f) => f.file_name)).toEqual([...recall.files].reverse().map((f) => f.file_name));
    const crash = recall.files[0]!;
    const byUser = (await both('log.list_files', { user_id: crash.user_id })).rest.items as FileItem[];
    expect(byUser.map((f) => f.session_id)).toEqual([crash.session_id]);
    const fuzzy = (await both('log.list_files', { q: 'crsh' })).rest.items as FileItem[];
    expect(fuzzy.map((f) => f.file_name)).toEqual([crash.file_name]);
  });

  it('log.file_entries: the crashed session reads to its FATAL line; the damaged file says where it stopped', async () => {
    const items = (await both('log.list_files', {})).rest.items as FileItem[];
    const crash = items.find((f) => f.file_name === recall.files[0]!.file_name)!;
    const { rest, mcp: viaMcp } = await both('log.file_entries', { file_id: crash.file_id, level: 'fatal' });
    expect(viaMcp).toEqual(rest);
    expect(rest).toMatchObject({ found: true, status: 'ok', problem: null });
    expect((rest.items as { message: string }[]).map((e) => e.message)).toEqual(
      recall.files[0]!.entries!.filter((e) => e.level === 'FATAL').map((e) => e.message),
    );

    const damaged = recall.files.find((f) => f.damagedText !== undefined)!;
    const stored = items.find((f) => f.file_name === damaged.file_name)!;
    const read = (await both('log.file_entries', { file_id: stored.file_id })).rest;
    const cutAt = damaged.damagedText!.split('\n').findIndex((line) => {
      try {
        JSON.parse(line);
        return false;
      } catch {
        return true;
      }
    });
    expect(read).toMatchObject({
      status: 'unreadable',
      problem: { stage: 'parse', line: cutAt + 1 },
      lines_read: cutAt,
    });
  });

  it('log.audit: every view, over MCP and over REST, with the token that read', async () => {
    const { rest } = await both('log.audit', { action: 'view', limit: 1000 });
    const views = rest.items as { via: string; token_id: string | null; user_id: string | null }[];
    expect(new Set(views.map((v) => v.via))).toEqual(new Set(['mcp', 'rest']));
    expect(views.every((v) => v.token_id !== null && v.user_id !== null)).toBe(true);
    const triggers = (
      await callRest(stack.ready.urls.gateway, 'log.audit', { action: 'trigger' }, bearer(token))
    ).body.items as { device_id: string }[];
    expect(triggers.map((t) => t.device_id)).toEqual([recall.pending.device_id]);
  });
});
