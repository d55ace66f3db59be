// Test support: the console over a real identity (PGlite, identity's own harness) on loopback,
// people signed in through the login form as a browser would, and tool callers that record.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Harness,
  type LogLine,
  recordingLogger,
  SECRET,
  seedProject,
  startHarness,
} from '@svc/identity/harness';
import type { Express } from 'express';
import request from 'supertest';
import { createConsoleApp } from '../app';
import { createIdentityApi } from '../identity-api';
import type { RecallApi } from '../recall-api';
import { sessionCookies } from '../session';
import { createToolCaller, type ToolAnswer, type ToolCaller } from '../tool-calls';

export const PUBLIC_URL = 'http://console.test:8094';
export const GATEWAY_PUBLIC_URL = 'https://mcp.example.com';

export interface TestUser {
  orgId: string;
  projectId: string;
  email: string;
  password: string;
}

export interface ConsoleTestBed {
  h: Harness;
  identityUrl: string;
  /** A console app over this identity; the tools default to a gateway nobody listens on. */
  consoleApp(options?: {
    publicUrl?: string;
    tools?: ToolCaller;
    recall?: RecallApi;
    /** The port the console listens on over loopback (its loopback origins are its own too). */
    loopbackPort?: number;
    /** SVC_CONSOLE_TRUSTED_PROXIES: whose X-Forwarded-For names the browser. */
    trustedProxies?: string[];
  }): {
    app: Express;
    logs: LogLine[];
  };
  /** A fresh org with one project, and a console user of that org. */
  user(name: string): Promise<TestUser>;
  close(): Promise<void>;
}

/** The gateway's MCP URL identity issues OAuth tokens for (its default). */
export const OAUTH_RESOURCE = 'http://localhost:8092/mcp';

export async function startConsoleTestBed(): Promise<ConsoleTestBed> {
  // identity listens first: its OAuth issuer is the address it is reached at, and its consent page
  // is the console's public URL (every URL it writes is the configured one, never a request's Host).
  let handler: ((req: unknown, res: unknown) => void) | undefined;
  const server: Server = createServer((req, res) => handler!(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const identityUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const h = await startHarness(undefined, {
    oauth: { issuer: `${identityUrl}/oauth`, resource: OAUTH_RESOURCE, consoleUrl: PUBLIC_URL },
  });
  handler = h.app as unknown as (req: unknown, res: unknown) => void;
  return {
    h,
    identityUrl,
    consoleApp(options = {}) {
      const publicUrl = options.publicUrl ?? PUBLIC_URL;
      const identity = createIdentityApi({ identityUrl, internalSecret: SECRET });
      const logs: LogLine[] = [];
      const app = createConsoleApp({
        config: {
          gatewayPublicUrl: GATEWAY_PUBLIC_URL,
          publicUrl,
          trustedProxies: options.trustedProxies ?? [],
        },
        identity,
        tools: options.tools ?? createToolCaller({ gatewayUrl: 'http://127.0.0.1:9', identity }),
        recall: options.recall,
        cookies: sessionCookies({
          publicUrl,
          internalSecret: SECRET,
          ...(options.loopbackPort === undefined ? {} : { loopbackPort: options.loopbackPort }),
        }),
        logger: recordingLogger(logs),
        now: () => new Date(h.clock.now),
      });
      return { app, logs };
    },
    async user(name) {
      const { orgId, projectId } = await seedProject(h, name);
      const email = `${name}@console.test`;
      const password = `password of ${name}`;
      await h
        .internal('post', '/internal/v1/admin/users')
        .send({ email, password, org_id: orgId })
        .expect(201);
      return { orgId, projectId, email, password };
    },
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await h.close();
    },
  };
}

/** The CSRF token a page's forms carry. */
export const csrfIn = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** Signs in through the login form, as a browser would; the agent keeps the cookies. */
export async function signIn(app: Express, u: { email: string; password: string }) {
  const agent = request.agent(app);
  const form = await agent.get('/login').expect(200);
  const res = await agent
    .post('/login')
    .type('form')
    .send({ _csrf: csrfIn(form.text), email: u.email, password: u.password, next: '/mcp' });
  expect(res.status).toBe(303);
  expect(res.headers.location).toBe('/mcp');
  return agent;
}

export interface RecordedCall {
  projectId: string;
  tool: string;
  input: unknown;
}

/** A tool caller answering from a script (an answer, or an error thrown as the real one does). */
export function recordingTools(
  answer: (tool: string, input: unknown) => ToolAnswer | Error,
  catalog: ToolCaller['catalog'] = async () => ({ paths: {} }),
) {
  const calls: RecordedCall[] = [];
  const tools: ToolCaller = {
    async call(_session, projectId, tool, input) {
      calls.push({ projectId, tool, input });
      const a = answer(tool, input);
      if (a instanceof Error) throw a;
      return a;
    },
    catalog,
    forget: () => {},
  };
  return { tools, calls };
}
