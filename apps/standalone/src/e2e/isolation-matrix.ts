import { type AnyMcpClient, bearer, callRest, connectMcpIn, type McpEra } from './support';

// The cross-project isolation matrix: whatever kind of token reads (a pasted one, an OAuth
// sign-in's), through every route a tool call takes (REST, a 2025-11-25 MCP session, a 2026-07-28
// MCP client), no tool that could surface another project's records does, while that project's own
// token finds them all through the same route (so an empty answer means isolation, not a broken query).

/** How the matrix's requests authenticate. */
export interface TokenSource {
  /** The Authorization header for the next request or MCP connection (an OAuth sign-in may refresh first). */
  authorization(): Promise<string>;
}

export const pastedToken = (token: string): TokenSource => ({ authorization: async () => bearer(token) });

/** What only the other project holds: a message marker, a user, a session and a platform. */
export interface ForeignRecords {
  marker: string;
  userId: string;
  sessionId: string;
  platform: string;
}

export const foreignRecords = (name: string): ForeignRecords => ({
  marker: `${name}-marker-only-there`,
  userId: `${name}-user-only-there`,
  sessionId: `${name}-session-only-there`,
  platform: `${name}-platform-only-there`,
});

/** The other project's log lines (ingest them before the matrix runs). */
export function foreignLogs(foreign: ForeignRecords, count = 3): Record<string, unknown>[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => ({
    timestamp: now - (i + 1) * 1000,
    level: 'ERROR',
    message: `${foreign.marker} payment declined #${i}`,
    source: 'backend',
    platform: foreign.platform,
    user_id: foreign.userId,
    session_id: foreign.sessionId,
  }));
}

export type IsolationRoute = 'rest' | McpEra;
export const ISOLATION_ROUTES: readonly IsolationRoute[] = ['rest', 'legacy', 'modern'];

type Call = (tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** Tool calls through one route, each answering the tool's structured result (a refusal throws). */
async function callerOn(
  route: IsolationRoute,
  gatewayUrl: string,
  source: TokenSource,
): Promise<{ call: Call; close(): Promise<void> }> {
  if (route === 'rest') {
    return {
      async call(tool, args) {
        const answer = await callRest(gatewayUrl, tool, args, await source.authorization());
        if (answer.status !== 200) throw new Error(`${tool} over REST: ${answer.status} ${answer.text}`);
        return answer.body;
      },
      close: async () => undefined,
    };
  }
  const client: AnyMcpClient = await connectMcpIn(route, `${gatewayUrl}/mcp`, await source.authorization());
  return {
    async call(tool, args) {
      const result = await client.callTool({ name: tool, arguments: args });
      if (result.isError) throw new Error(`${tool} over MCP (${route}): ${JSON.stringify(result.content)}`);
      return result.structuredContent as Record<string, unknown>;
    },
    close: () => client.close(),
  };
}

/** What a token finds of the foreign records through one route, with every tool that could show them. */
async function foundOf(call: Call, foreign: ForeignRecords) {
  const items = async (tool: string, args: Record<string, unknown>) =>
    ((await call(tool, args)).items as { message: string }[]).length;
  const groups = (await call('log.aggregate', { group_by: 'platform' })).groups as { key: string }[];
  const recent = (await call('log.recent', { limit: 1000 })).items as { message: string }[];
  return {
    search: await items('log.search', { search: foreign.marker }),
    byUser: await items('log.by_user', { user_id: foreign.userId }),
    bySession: await items('log.by_session', { session_id: foreign.sessionId }),
    platformGroup: groups.some((g) => g.key === foreign.platform),
    recent: recent.filter((line) => line.message.includes(foreign.marker)).length,
  };
}

/**
 * `reader` finds none of the `count` foreign records through `route`; `owner` (the foreign
 * project's token) finds every one of them through the same route.
 */
export async function expectIsolatedOn(
  route: IsolationRoute,
  gatewayUrl: string,
  sources: { reader: TokenSource; owner: TokenSource },
  foreign: ForeignRecords,
  count = 3,
): Promise<void> {
  const reader = await callerOn(route, gatewayUrl, sources.reader);
  const owner = await callerOn(route, gatewayUrl, sources.owner);
  try {
    expect({ route, ...(await foundOf(owner.call, foreign)) }).toEqual({
      route,
      search: count,
      byUser: count,
      bySession: count,
      platformGroup: true,
      recent: count,
    });
    expect({ route, ...(await foundOf(reader.call, foreign)) }).toEqual({
      route,
      search: 0,
      byUser: 0,
      bySession: 0,
      platformGroup: false,
      recent: 0,
    });
  } finally {
    await Promise.all([reader.close(), owner.close()]);
  }
}
