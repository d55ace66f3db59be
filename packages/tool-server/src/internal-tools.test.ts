import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { ACTOR_HEADER } from '@svc/tool-kit';
import express from 'express';
import request from 'supertest';
import { CursorSeal } from './cursor';
import { httpErrorHandler } from './http-errors';
import { type Admit, type InternalToolCall, internalToolRoutes } from './internal-tools';
import { type AnyServedTool, isServed, serveWith } from './serve';
import { echoTool } from './testing/fixtures';

interface EchoCall {
  projectId: string;
  actor: string;
}
const serve = serveWith<EchoCall>();
const echo = serve(echoTool, async (call, input) => ({
  items: [{ word: input.word, project: `${call.projectId}/${call.actor}` }],
  limit: input.limit,
  has_more: false,
}));
const admitWithActor: Admit<EchoCall> = (call, _tool, answer) =>
  answer({ projectId: call.projectId, actor: call.actor().transport });

function appWith(tools: readonly AnyServedTool<EchoCall>[], admit = admitWithActor) {
  const app = express();
  app.use(
    '/internal',
    internalToolRoutes({ tools, admit, metrics: createNoopMetrics(), counter: 't_calls' }),
  );
  app.use(httpErrorHandler(silentLogger));
  return app;
}
const actor = JSON.stringify({ token_id: null, user_id: 'u1', transport: 'rest' });

describe('serve', () => {
  it('binds a handler to the definition, with its name and schemas', () => {
    expect(echo.name).toBe('demo.echo');
    expect(echo.input).toBe(echoTool.input);
    expect(echo.output).toBe(echoTool.output);
    expect(isServed(echo)).toBe(true);
  });

  it('does not count a copy, nor a handler cast onto a definition', () => {
    expect(isServed({ ...echo })).toBe(false);
    expect(isServed({ definition: echoTool, run: echo.run })).toBe(false);
  });
});

describe('internalToolRoutes', () => {
  it('refuses at start a tool not bound through serve', () => {
    const cast = { ...echo } as AnyServedTool<EchoCall>;
    expect(() => appWith([cast])).toThrow('tool demo.echo is not bound through serve()');
  });

  it('refuses a duplicate name at start', () => {
    expect(() => appWith([echo, echo])).toThrow('duplicate tool demo.echo');
  });

  it('answers a served tool with the context its admission gives', async () => {
    const res = await request(appWith([echo]))
      .post('/internal/v1/projects/p1/tools/demo.echo')
      .set(ACTOR_HEADER, actor)
      .send({ word: 'hi' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [{ word: 'hi', project: 'p1/rest' }], limit: 5, has_more: false });
  });

  it('refuses a call without a caller when the admission asks for one', async () => {
    const res = await request(appWith([echo]))
      .post('/internal/v1/projects/p1/tools/demo.echo')
      .send({ word: 'hi' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(ACTOR_HEADER);
  });

  it('answers 404 for an unknown tool and 400 for invalid input', async () => {
    const app = appWith([echo]);
    const unknown = await request(app).post('/internal/v1/projects/p1/tools/demo.nope').send({});
    expect(unknown.status).toBe(404);
    const invalid = await request(app)
      .post('/internal/v1/projects/p1/tools/demo.echo')
      .set(ACTOR_HEADER, actor)
      .send({ word: '' });
    expect(invalid.status).toBe(400);
  });
});

describe('internalToolRoutes with cursors', () => {
  // A list of 7 words, paged by the offset the route opens from each cursor.
  const WORDS = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
  const pageServe = serveWith<{ offset: number }>();
  const words = pageServe(echoTool, async ({ offset }, input) => ({
    items: WORDS.slice(offset, offset + input.limit).map((w) => ({ word: w, project: input.word })),
    limit: input.limit,
    has_more: offset + input.limit < WORDS.length,
  }));
  const app = express();
  app.use(
    '/internal',
    internalToolRoutes({
      tools: [words],
      admit: (call: InternalToolCall, _tool, answer) => answer({ offset: call.offset }),
      metrics: createNoopMetrics(),
      counter: 't_calls',
      cursors: new CursorSeal('the-internal-secret-of-this-test'),
    }),
  );
  app.use(httpErrorHandler(silentLogger));
  const call = (body: object) =>
    request(app).post('/internal/v1/projects/p1/tools/demo.echo').set(ACTOR_HEADER, actor).send(body);

  it('answers next_cursor while more follow; following them yields every item once', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await call({ word: 'x', limit: 3, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((i: { word: string }) => i.word));
      cursor = res.body.next_cursor;
      expect(cursor === undefined).toBe(!res.body.has_more);
    } while (cursor);
    expect(seen).toEqual(WORDS);
  });

  it('refuses a cursor with other arguments, or one it did not make, as a 400 naming cursor', async () => {
    const first = await call({ word: 'x', limit: 3 });
    const other = await call({ word: 'y', limit: 3, cursor: first.body.next_cursor });
    expect(other.status).toBe(400);
    expect(other.body.message).toMatch(/cursor belongs to another call/);
    const made = await call({ word: 'x', limit: 3, cursor: 'eyJvIjo5OX0.forged' });
    expect(made.status).toBe(400);
    expect(made.body.message).toMatch(/cursor is not a cursor this service made/);
  });
});
