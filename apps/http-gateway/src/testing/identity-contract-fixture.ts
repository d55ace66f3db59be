import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AuditEntry, auditEntrySchema } from '@svc/audit';
import { generateToken, hashToken } from '@svc/auth';
import express from 'express';
import { z } from 'zod';

/**
 * CONTRACT FIXTURE, not the identity service: a small HTTP app implementing exactly identity's
 * documented POST /internal/v1/introspect and POST /internal/v1/audit (docs/internal-api.md)
 * over in-memory tables, so the gateway is tested over real HTTP while apps/identity is being
 * written. End-to-end tests against the real services live in apps/standalone.
 */
export interface FixtureToken {
  token: string;
  tokenId: string;
}

interface TokenRow {
  tokenId: string;
  userId: string;
  orgId: string | null;
  projectId: string | null;
  scopes: string[];
  expiresAt: Date;
  revokedAt: Date | null;
  /** The web console's own token of a session (introspection says `console: true`). */
  console: boolean;
  audience: string | undefined;
}

export interface IdentityContractFixture {
  url: string;
  /** Introspection calls received (to prove offline refusals never reach identity). */
  introspections: number;
  audit: AuditEntry[];
  /** When set, /internal/v1/audit answers 500 and stores nothing (an audit store that is down). */
  failAudit: boolean;
  orgCapabilities: Map<string, string[]>;
  issue(options?: {
    projectId?: string | null;
    orgId?: string | null;
    scopes?: string[];
    expiresAt?: Date;
    console?: boolean;
    /** An OAuth access token's resource, answered as `audience`. */
    audience?: string;
  }): FixtureToken;
  revoke(tokenId: string): void;
  close(): Promise<void>;
}

const introspectBody = z.strictObject({ token: z.string() });
const auditBody = z.strictObject({ records: z.array(auditEntrySchema).min(1) });

export async function startIdentityContractFixture(secret: string): Promise<IdentityContractFixture> {
  const rows = new Map<string, TokenRow>();
  let seq = 0;
  const fixture: IdentityContractFixture = {
    url: '',
    introspections: 0,
    audit: [],
    failAudit: false,
    orgCapabilities: new Map(),
    issue(options = {}) {
      const token = generateToken();
      const tokenId = `tok_${++seq}`;
      rows.set(hashToken(token), {
        tokenId,
        userId: `user_${seq}`,
        orgId: options.orgId === undefined ? 'org_1' : options.orgId,
        projectId: options.projectId === undefined ? 'proj_a' : options.projectId,
        scopes: options.scopes ?? ['mcp:read'],
        expiresAt: options.expiresAt ?? new Date(Date.now() + 90 * 86_400_000),
        revokedAt: null,
        console: options.console ?? false,
        audience: options.audience,
      });
      return { token, tokenId };
    },
    revoke(tokenId) {
      for (const row of rows.values()) if (row.tokenId === tokenId) row.revokedAt = new Date();
    },
    close: async () => {},
  };

  const app = express();
  app.use(express.json());
  app.use('/internal', (req, res, next) => {
    if (req.get('x-internal-secret') !== secret) {
      res.status(401).json({ error: 'unauthorized', message: 'internal secret required' });
      return;
    }
    next();
  });
  app.post('/internal/v1/introspect', (req, res) => {
    fixture.introspections++;
    const body = introspectBody.safeParse(req.body);
    if (!body.success) {
      res.status(400).json({ error: 'invalid_input', message: 'token required' });
      return;
    }
    const row = rows.get(hashToken(body.data.token));
    if (!row || row.revokedAt || row.expiresAt.getTime() <= Date.now()) {
      res.json({ active: false });
      return;
    }
    res.json({
      active: true,
      token_id: row.tokenId,
      user_id: row.userId,
      org_id: row.orgId,
      project_id: row.projectId,
      scopes: row.scopes,
      expires_at: row.expiresAt.toISOString(),
      capabilities: row.orgId ? (fixture.orgCapabilities.get(row.orgId) ?? []) : [],
      ...(row.console ? { console: true } : {}),
      ...(row.audience ? { audience: row.audience } : {}),
    });
  });
  app.post('/internal/v1/audit', (req, res) => {
    if (fixture.failAudit) {
      res.status(500).json({ error: 'internal', message: 'could not commit' });
      return;
    }
    const body = auditBody.safeParse(req.body);
    if (!body.success) {
      res.status(400).json({ error: 'invalid_input', message: 'invalid audit records' });
      return;
    }
    fixture.audit.push(...body.data.records);
    res.status(201).json({ written: body.data.records.length });
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  const server = await listenLoopback(app);
  fixture.url = urlOf(server);
  fixture.close = () => closeServer(server);
  return fixture;
}

export function listenLoopback(app: express.Express): Promise<Server> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}

export function urlOf(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
