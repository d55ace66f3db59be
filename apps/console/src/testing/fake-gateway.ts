// Test support: a gateway's two routes the console uses (GET /openapi.json, POST /v1/tools/:name)
// on loopback, answering from a script and keeping what it was sent, bearer included: the console's
// real tool caller talks to it over HTTP as it does to a gateway.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { OpenApiDocument } from '../tool-calls';

export interface GatewayCall {
  tool: string;
  authorization: string | undefined;
  input: unknown;
}

export interface FakeGateway {
  url: string;
  calls: GatewayCall[];
  close(): Promise<void>;
}

export async function startFakeGateway(options: {
  openapi: OpenApiDocument;
  answer: (tool: string, input: unknown) => { status: number; body: unknown };
}): Promise<FakeGateway> {
  const calls: GatewayCall[] = [];
  const app = express();
  app.get('/openapi.json', (_req, res) => void res.json(options.openapi));
  app.post('/v1/tools/:name', express.json(), (req, res) => {
    calls.push({ tool: req.params.name, authorization: req.get('authorization'), input: req.body });
    const { status, body } = options.answer(req.params.name, req.body);
    res.status(status).json(body);
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
