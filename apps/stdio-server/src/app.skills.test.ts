import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { allTools, catalogToolsets, catalogViews, investigationGuides } from '@svc/tool-catalog';
import { ToolExecutor, ToolRegistry, Toolsets } from '@svc/tool-server';
import { MemoryAuditSink } from '@svc/tool-server/testing';
import { z } from 'zod';
import { createStdioApp } from './app';

// The stdio app serves the catalog's investigation guides as skills (the MCP Skills extension)
// as it serves them as prompts, for a client of each era, narrowed by SVC_MCP_TOOLSETS.

const EXTENSION = 'io.modelcontextprotocol/skills';
const GUIDE_NAMES = investigationGuides.map((g) => g.name).sort();
const TOOL_NAMES = new Set(allTools.map((t) => t.name));

/** The stdio app over an in-memory pipe; the client's opening decides the era. */
function connect(toolsets?: string) {
  // Every backend up and every org switch on: each guide's tools are visible (no tool is called).
  const executor = new ToolExecutor({
    registry: new ToolRegistry(allTools),
    audit: new MemoryAuditSink(),
    backends: {},
    isBackendAvailable: () => true,
    logger: silentLogger,
    metrics: createNoopMetrics(),
  });
  const choice = toolsets ? new Toolsets(catalogToolsets).choose([toolsets]) : undefined;
  const stdio = createStdioApp({
    executor,
    projectId: 'prj_local',
    orgId: 'org_local',
    capabilities: () => new Set(['vis_trace', 'vis_recall', 'vis_ai_verifier']),
    localUser: 'local:tester',
    views: catalogViews,
    ...(choice ? { toolsets: choice } : {}),
    guides: investigationGuides,
    version: '0.0.1',
    logger: silentLogger,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  return { clientSide, handle: stdio.serve(serverSide) };
}

const capabilities = { extensions: { [EXTENSION]: {} } };

describe('stdio skills, modern client', () => {
  it('lists the four guides as skills and reads each verified SKILL.md naming catalog tools', async () => {
    const { clientSide, handle } = connect();
    const client = new Client(
      { name: 'v2', version: '0' },
      { versionNegotiation: { mode: 'auto' }, capabilities },
    );
    await client.connect(clientSide);
    const skills = new SkillsClient(client);
    const { skills: listed } = await skills.list();
    expect(listed.map((s) => s.frontmatter.name).sort()).toEqual(GUIDE_NAMES);
    for (const skill of listed) {
      const file = await skills.read(skill);
      expect(file.verified).toBe(true);
      const tools = [...(file.body ?? '').matchAll(/^\d+\. (\S+) \{/gm)].map((m) => m[1]!);
      expect(tools.length).toBeGreaterThan(0);
      for (const tool of tools) expect(TOOL_NAMES.has(tool)).toBe(true);
    }
    await handle.close();
  });
});

describe('stdio skills, legacy client', () => {
  const List = z.object({
    skills: z.array(z.object({ uri: z.string(), resources: z.array(z.any()) }).loose()),
  });

  it('lists the four guides as skills; each SKILL.md is what its entry says', async () => {
    const { clientSide, handle } = connect();
    const client = new V1Client({ name: 'v1', version: '0' }, { capabilities } as never);
    await client.connect(clientSide as never);
    expect((client.getServerCapabilities() as { extensions?: unknown }).extensions).toEqual({
      [EXTENSION]: {},
    });
    const { skills } = await client.request({ method: 'skills/list', params: {} }, List);
    expect(skills.map((s) => s.uri).sort()).toEqual(GUIDE_NAMES.map((n) => `skill://${n}/SKILL.md`));
    for (const skill of skills) {
      const text = ((await client.readResource({ uri: skill.uri })).contents[0] as { text: string }).text;
      const bytes = Buffer.from(text, 'utf8');
      expect(skill.resources).toEqual([
        {
          uri: skill.uri,
          size: bytes.length,
          digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
        },
      ]);
    }
    await handle.close();
  });

  it('serves only the skills whose tools are all in SVC_MCP_TOOLSETS, as the prompts', async () => {
    const { clientSide, handle } = connect('users,logs,analytics,trace,crash');
    const client = new V1Client({ name: 'v1', version: '0' }, { capabilities } as never);
    await client.connect(clientSide as never);
    const { skills } = await client.request({ method: 'skills/list', params: {} }, List);
    expect(skills.map((s) => s.uri)).toEqual(['skill://reconstruct-user-session/SKILL.md']);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['reconstruct-user-session']);
    await handle.close();
  });
});
