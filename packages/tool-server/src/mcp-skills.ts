// The investigation guides as skills: the MCP Skills extension (io.modelcontextprotocol/skills),
// served on the low-level Server the binding is (mcp-binding.ts). The SDK's SkillsExtension can
// only attach to its high-level McpServer, whose own resources handlers would take the place of
// the views' (mcp-resources.ts); so the extension's three requests are served here, and the
// SDK's `skillEntry` writes each entry (digest, size, frontmatter, the naming rules) exactly as
// the SDK's clients verify it. Each SKILL.md is written from the same guide its prompt is
// (mcp-prompts.ts), so the two cannot say different things.

import { type CacheHint, ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import {
  SKILLS_EXTENSION_ID,
  SKILLS_GET_METHOD,
  SKILLS_LIST_METHOD,
  type Skill,
  skillEntry,
} from '@modelcontextprotocol/server/ext/skills';
import type { InvestigationGuide } from '@svc/tool-kit';
import { z } from 'zod';
import { guideSteps, guidesWithin } from './mcp-prompts';
import type { ResourceShelf } from './mcp-resources';

/** The capability a server declares in `capabilities.extensions` to serve skills. */
export const SKILLS_EXTENSION = { [SKILLS_EXTENSION_ID]: {} };

/** What a skill's SKILL.md is served as (plain text a model reads: markdown). */
const SKILL_MD_MIME_TYPE = 'text/markdown';

/** One guide as a skill: its entry for skills/list and skills/get, and its SKILL.md. */
interface GuideSkill {
  entry: Skill;
  markdown: string;
}

/**
 * A guide's SKILL.md: the frontmatter the extension requires (`name`, the guide's own, which is
 * also the skill's folder; `description`, when to use it), then the inputs and the numbered tool
 * calls with the inputs as `<name>` placeholders, said as the prompt says them.
 */
export function skillMarkdown(guide: InvestigationGuide): string {
  const placeholders = Object.fromEntries(guide.arguments.map((a) => [a.name, `<${a.name}>`]));
  const inputs = guide.arguments.map(
    (a) => `- \`${a.name}\`${a.required ? '' : ' (optional)'}: ${a.description}`,
  );
  return [
    '---',
    `name: ${guide.name}`,
    // JSON's string form is a YAML double-quoted scalar: no character of a description can break it.
    `description: ${JSON.stringify(skillDescription(guide))}`,
    '---',
    `# ${guide.title}`,
    '',
    guide.description,
    ...(inputs.length > 0 ? ['', '## Inputs', '', ...inputs] : []),
    '',
    '## Steps',
    '',
    'Call these tools of this MCP server in order; put the inputs in place of their `<name>`; other',
    'values in <...> come from an earlier answer.',
    '',
    ...guideSteps(guide, placeholders),
    '',
  ].join('\n');
}

/** The skill's frontmatter description: when to use it, and the tools it calls. */
function skillDescription(guide: InvestigationGuide): string {
  const tools = [...new Set(guide.steps.map((step) => step.tool))].join(', ');
  return `${guide.description} Uses the tools ${tools}.`;
}

// Entries are written once per guide (skillEntry hashes with WebCrypto: async): the guides are
// constants of the process, and every server made for a request or a session shares them.
const writtenSkills = new WeakMap<InvestigationGuide, Promise<GuideSkill>>();

/** Where a guide's SKILL.md is served: the extension's default `skill://` base, the name as its folder. */
function skillUri(guide: InvestigationGuide): string {
  return `skill://${guide.name}/SKILL.md`;
}

function skillOf(guide: InvestigationGuide): Promise<GuideSkill> {
  let written = writtenSkills.get(guide);
  if (!written) {
    const markdown = skillMarkdown(guide);
    written = skillEntry(guide.name, { 'SKILL.md': markdown }).then((entry) => ({ entry, markdown }));
    writtenSkills.set(guide, written);
  }
  return written;
}

/** The skills this caller is served: those of the guides whose every tool it can see. */
function servedSkills(
  guides: readonly InvestigationGuide[],
  visibleToolNames: () => ReadonlySet<string>,
): Promise<GuideSkill[]> {
  return Promise.all(guidesWithin(guides, visibleToolNames()).map(skillOf));
}

const ListSkillsParams = z.looseObject({ cursor: z.string().optional() });
const GetSkillParams = z.looseObject({ uri: z.string() });

export interface SkillsServing {
  /** Whether this server answers `method` (a modern request's server answers one). */
  serves: (method: string) => boolean;
  /**
   * The caching fields of skills/list and skills/get: the 2026-07-28 revision requires them on
   * both (its clients refuse a page without them), the 2025 ones have none. The Server's
   * `cacheHints` option fills them only for the protocol's own methods, not an extension's.
   */
  cacheFields: CacheHint | Record<string, never>;
}

/**
 * skills/list (every served skill, one page: there are four) and skills/get (one by its SKILL.md
 * URI; another URI, or a skill whose tools this caller cannot see, is -32602 as in the SDK). The
 * server must declare SKILLS_EXTENSION and `resources` (the files are read as resources).
 */
export function serveSkills(
  server: Server,
  guides: readonly InvestigationGuide[],
  visibleToolNames: () => ReadonlySet<string>,
  { serves, cacheFields }: SkillsServing,
): void {
  if (serves(SKILLS_LIST_METHOD)) {
    server.setRequestHandler(SKILLS_LIST_METHOD, { params: ListSkillsParams }, async () => ({
      skills: (await servedSkills(guides, visibleToolNames)).map((skill) => skill.entry),
      ...cacheFields,
    }));
  }
  if (serves(SKILLS_GET_METHOD)) {
    server.setRequestHandler(SKILLS_GET_METHOD, { params: GetSkillParams }, async ({ uri }) => {
      const skills = await servedSkills(guides, visibleToolNames);
      const skill = skills.find((s) => s.entry.uri === uri);
      if (!skill) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No skill is served at ${uri}`);
      return { skill: skill.entry, ...cacheFields };
    });
  }
}

/**
 * The skills' files as a resource shelf: resources/list shows each served skill's SKILL.md with
 * its frontmatter's name and description (as the SDK's own catalog lists them, and as the
 * extension asks, so a client that only knows resources still finds them); resources/read
 * answers it.
 */
export function skillShelf(
  guides: readonly InvestigationGuide[],
  visibleToolNames: () => ReadonlySet<string>,
): ResourceShelf {
  return {
    list: () =>
      guidesWithin(guides, visibleToolNames()).map((guide) => ({
        uri: skillUri(guide),
        name: guide.name,
        description: skillDescription(guide),
        mimeType: SKILL_MD_MIME_TYPE,
        size: new TextEncoder().encode(skillMarkdown(guide)).byteLength,
      })),
    read: async (uri) => {
      const skills = await servedSkills(guides, visibleToolNames);
      const skill = skills.find((s) => s.entry.uri === uri);
      if (!skill) return undefined;
      return { contents: [{ uri, mimeType: SKILL_MD_MIME_TYPE, text: skill.markdown }] };
    },
  };
}
