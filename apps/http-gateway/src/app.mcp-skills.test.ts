import { createHash } from 'node:crypto';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { type Skill, SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { allTools, catalogToolsets, catalogViews, investigationGuides } from '@svc/tool-catalog';
import type { AnyTool } from '@svc/tool-kit';
import { Toolsets } from '@svc/tool-server';
import { logsTools } from '@svc/tools-logs';
import { z } from 'zod';
import { type Harness, startHarness } from './testing/gateway-harness';
import { ERAS, type Era, MODERN_VERSION } from './testing/mcp-clients';

// The investigation guides as skills (the MCP Skills extension) on /mcp, in both eras over real
// HTTP, beside the same guides as prompts and the catalog's views as resources.

const EXTENSION = 'io.modelcontextprotocol/skills';
const CATALOG_NAMES = new Set(allTools.map((t) => t.name));
const GUIDE_NAMES = investigationGuides.map((g) => g.name);
// The harness has no copilot backend: verify's tools are served by the core fixture here, so every
// guide's tools are visible (judge-experiment ends with verify.run). Only visibility matters: no
// test here calls a tool.
const logNames = new Set(logsTools.map((t) => t.name));
const moreTools: AnyTool[] = allTools
  .filter((t) => !logNames.has(t.name))
  .map((t) => (t.backend === 'copilot' ? { ...t, backend: 'core' } : t));

let h: Harness;
let token: string;
beforeAll(async () => {
  h = await startHarness(
    {},
    {
      tools: moreTools,
      toolsets: new Toolsets(catalogToolsets),
      guides: investigationGuides,
      views: catalogViews,
    },
  );
  // Trace, recall and verify tools need their org's switches; the guides use trace and verify.
  h.identity.orgCapabilities.set('org_1', ['vis_trace', 'vis_recall', 'vis_ai_verifier']);
  token = h.identity.issue({ projectId: 'proj_a' }).token;
});
afterAll(async () => {
  await h.close();
});

interface SkillEntry {
  uri: string;
  frontmatter: { name: string; description: string };
  resources: { uri: string; digest: string; size: number }[];
}

/** One era's client, with or without the extension declared, behind the calls these tests make. */
interface SkillsTestClient {
  declared: Record<string, unknown> | undefined;
  listSkills(): Promise<SkillEntry[]>;
  getSkill(uri: string): Promise<SkillEntry>;
  /** The SKILL.md of `skill`, read as a resource and checked against its entry (size, digest). */
  readSkill(skill: SkillEntry): Promise<string>;
  listPrompts(): Promise<string[]>;
  listResources(): Promise<string[]>;
  readResource(uri: string): Promise<{ uri: string; text?: string }>;
  close(): Promise<void>;
}

async function connect(era: Era, options: { extension?: boolean; toolsets?: string } = {}) {
  const endpoint = new URL('/mcp', h.url);
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (options.toolsets) headers['X-MCP-Toolsets'] = options.toolsets;
  const capabilities = options.extension === false ? {} : { extensions: { [EXTENSION]: {} } };
  return era === 'modern'
    ? connectModern(endpoint, headers, capabilities)
    : connectLegacy(endpoint, headers, capabilities);
}

async function connectModern(
  endpoint: URL,
  headers: Record<string, string>,
  capabilities: Record<string, unknown>,
): Promise<SkillsTestClient> {
  const client = new ModernClient(
    { name: 'skills-test', version: '1' },
    { versionNegotiation: { mode: { pin: MODERN_VERSION } }, capabilities },
  );
  await client.connect(new ModernTransport(endpoint, { requestInit: { headers } }));
  const skills = new SkillsClient(client);
  return {
    declared: client.getServerCapabilities()?.extensions,
    listSkills: async () => (await skills.list()).skills as SkillEntry[],
    getSkill: async (uri) => (await skills.get(uri)).skill as SkillEntry,
    // The SDK's host side verifies size, digest and frontmatter against the entry.
    readSkill: async (skill) => (await skills.read(skill as Skill)).text ?? '',
    listPrompts: async () => (await client.listPrompts()).prompts.map((p) => p.name),
    listResources: async () => (await client.listResources()).resources.map((r) => r.uri),
    readResource: async (uri) =>
      (await client.readResource({ uri })).contents[0] as { uri: string; text?: string },
    close: () => client.close(),
  };
}

const LegacySkillList = z.object({ skills: z.array(z.any()) });
const LegacySkillGet = z.object({ skill: z.any() });

/** The 1.32.2 client has no skills support: the extension's requests as a host would send them. */
async function connectLegacy(
  endpoint: URL,
  headers: Record<string, string>,
  capabilities: Record<string, unknown>,
): Promise<SkillsTestClient> {
  const client = new LegacyClient({ name: 'skills-test', version: '1' }, { capabilities });
  await client.connect(new LegacyTransport(endpoint, { requestInit: { headers } }));
  const readResource = async (uri: string) =>
    (await client.readResource({ uri })).contents[0] as { uri: string; text?: string };
  return {
    declared: (client.getServerCapabilities() as { extensions?: Record<string, unknown> }).extensions,
    listSkills: async () =>
      (await client.request({ method: 'skills/list', params: {} }, LegacySkillList)).skills as SkillEntry[],
    getSkill: async (uri) =>
      (await client.request({ method: 'skills/get', params: { uri } }, LegacySkillGet)).skill as SkillEntry,
    async readSkill(skill) {
      const text = (await readResource(skill.uri)).text ?? '';
      const bytes = Buffer.from(text, 'utf8');
      const listed = skill.resources.find((r) => r.uri === skill.uri);
      expect(listed).toEqual({
        uri: skill.uri,
        size: bytes.length,
        digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
      });
      return text;
    },
    listPrompts: async () => (await client.listPrompts()).prompts.map((p) => p.name),
    listResources: async () => (await client.listResources()).resources.map((r) => r.uri),
    readResource,
    close: () => client.close(),
  };
}

/** The tools a SKILL.md's numbered steps call, in order. */
function stepTools(markdown: string): string[] {
  return [...markdown.matchAll(/^\d+\. (\S+) \{/gm)].map((m) => m[1]!);
}

describe.each(ERAS)('skills on /mcp, %s era', (era) => {
  it('a client declaring the extension discovers the four guides and reads each SKILL.md', async () => {
    const client = await connect(era);
    expect(client.declared).toEqual({ [EXTENSION]: {} });
    const skills = await client.listSkills();
    expect(skills.map((s) => s.frontmatter.name).sort()).toEqual([...GUIDE_NAMES].sort());
    for (const guide of investigationGuides) {
      const skill = skills.find((s) => s.frontmatter.name === guide.name)!;
      expect(skill.uri).toBe(`skill://${guide.name}/SKILL.md`);
      expect(await client.getSkill(skill.uri)).toEqual(skill);
      const markdown = await client.readSkill(skill);
      expect(markdown).toContain(`# ${guide.title}`);
      // The tools in the guide's order, each one the registry serves.
      const tools = stepTools(markdown);
      expect(tools).toEqual(guide.steps.map((s) => s.tool));
      for (const tool of tools) expect(CATALOG_NAMES.has(tool)).toBe(true);
    }
    await client.close();
    // Counted by name in the requests metric, not as `other`.
    const metrics = await h.metrics.render();
    for (const method of ['skills/list', 'skills/get'])
      expect(metrics).toMatch(
        new RegExp(`svc_gateway_mcp_requests_total\\{era="${era}",method="${method}"\\} [1-9]`),
      );
  });

  it('a client without the extension still gets the guides as prompts', async () => {
    const client = await connect(era, { extension: false });
    expect((await client.listPrompts()).sort()).toEqual([...GUIDE_NAMES].sort());
    await client.close();
  });

  it('offers only the skills whose tools are all in the chosen toolsets, as the prompts', async () => {
    const client = await connect(era, { toolsets: 'crash,apm' });
    expect((await client.listSkills()).map((s) => s.frontmatter.name)).toEqual(['triage-crash-regression']);
    expect(await client.listPrompts()).toEqual(['triage-crash-regression']);
    await expect(client.getSkill('skill://find-slow-endpoint/SKILL.md')).rejects.toMatchObject({
      code: -32602,
    });
    await expect(client.readResource('skill://find-slow-endpoint/SKILL.md')).rejects.toMatchObject({
      code: -32602,
    });
    await client.close();
  });

  it('lists the views as before beside the skills, and still reads each view', async () => {
    const client = await connect(era);
    const listed = await client.listResources();
    const views = catalogViews.resources.map((r) => r.uri);
    expect(listed.filter((uri) => uri.startsWith('ui://')).sort()).toEqual([...views].sort());
    expect(listed.filter((uri) => !uri.startsWith('ui://')).sort()).toEqual(
      GUIDE_NAMES.map((name) => `skill://${name}/SKILL.md`).sort(),
    );
    const view = await client.readResource(views[0]!);
    expect(view).toMatchObject({ uri: views[0], text: catalogViews.resources[0]!.text });
    await client.close();
  });
});
