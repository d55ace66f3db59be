import { UnauthorizedError } from '@svc/errors';
import {
  type IntrospectionResponse,
  introspectionResponseSchema,
  principalFromIntrospection,
} from './introspection';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const active: IntrospectionResponse = {
  active: true,
  token_id: 'tok_1',
  user_id: 'usr_1',
  org_id: 'org_1',
  project_id: 'prj_1',
  scopes: ['mcp:read'],
  expires_at: '2030-01-02T00:00:00.000Z',
  capabilities: ['vis_trace', 'vis_recall'],
};

function reasonOf(answer: IntrospectionResponse, now = NOW): string {
  try {
    principalFromIntrospection(answer, now);
  } catch (err) {
    expect(err).toBeInstanceOf(UnauthorizedError);
    return (err as UnauthorizedError).reason;
  }
  throw new Error('expected a refusal');
}

describe('introspectionResponseSchema', () => {
  it('accepts both documented answers', () => {
    expect(introspectionResponseSchema.parse({ active: false })).toEqual({ active: false });
    expect(introspectionResponseSchema.parse(active)).toEqual(active);
  });

  it("reads the mark of the web console's own tokens (true or absent, nothing else)", () => {
    expect(introspectionResponseSchema.parse({ ...active, console: true })).toEqual({
      ...active,
      console: true,
    });
    expect(introspectionResponseSchema.safeParse({ ...active, console: false }).success).toBe(false);
    expect(introspectionResponseSchema.safeParse({ ...active, console: 'yes' }).success).toBe(false);
  });

  it("reads an OAuth access token's audience (a URL, or absent)", () => {
    const oauth = { ...active, audience: 'https://mcp.example.test/mcp' };
    expect(introspectionResponseSchema.parse(oauth)).toEqual(oauth);
    expect(introspectionResponseSchema.safeParse({ ...active, audience: 'gateway' }).success).toBe(false);
  });

  it('rejects unknown capabilities, missing fields and extra keys', () => {
    expect(introspectionResponseSchema.safeParse({ ...active, capabilities: ['admin'] }).success).toBe(false);
    const { token_id: _, ...missing } = active;
    expect(introspectionResponseSchema.safeParse(missing).success).toBe(false);
    expect(introspectionResponseSchema.safeParse({ active: false, token_id: 'x' }).success).toBe(false);
    expect(introspectionResponseSchema.safeParse({ ...active, expires_at: 'tomorrow' }).success).toBe(false);
  });
});

describe('principalFromIntrospection', () => {
  it('maps an active mcp:read project token to a principal', () => {
    const principal = principalFromIntrospection(active, NOW);
    expect(principal).toEqual({
      tokenId: 'tok_1',
      userId: 'usr_1',
      orgId: 'org_1',
      projectId: 'prj_1',
      capabilities: new Set(['vis_trace', 'vis_recall']),
    });
  });

  it('accepts a Date for now', () => {
    expect(principalFromIntrospection(active, new Date(NOW)).projectId).toBe('prj_1');
  });

  it('refuses inactive, expired, scope-less and project-less answers', () => {
    expect(reasonOf({ active: false })).toBe('inactive');
    expect(reasonOf(active, Date.parse(active.expires_at))).toBe('expired');
    expect(reasonOf(active, Date.parse(active.expires_at) + 1)).toBe('expired');
    expect(reasonOf({ ...active, scopes: ['api:read'] })).toBe('missing_scope');
    expect(reasonOf({ ...active, project_id: null })).toBe('no_project');
  });
});
