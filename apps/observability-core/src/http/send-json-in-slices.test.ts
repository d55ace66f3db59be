import express from 'express';
import fc from 'fast-check';
import request from 'supertest';
import { sendJsonInSlices } from './send-json-in-slices';

function appSending(value: () => unknown) {
  const app = express();
  app.get('/', (_req, res, next) => {
    sendJsonInSlices(res, 200, value()).catch(next);
  });
  return app;
}

async function raw(app: express.Express) {
  const res = await request(app)
    .get('/')
    .buffer(true)
    .parse((r, done) => {
      const parts: Buffer[] = [];
      r.on('data', (c: Buffer) => parts.push(c));
      r.on('end', () => done(null, Buffer.concat(parts).toString('utf8')));
    });
  return { text: res.body as string, headers: res.headers };
}

describe('sendJsonInSlices', () => {
  it('writes exactly what JSON.stringify makes, with its Content-Length', async () => {
    const member = fc.oneof(
      fc.jsonValue(),
      fc.constant(undefined),
      fc.constant(() => 1),
    );
    const answer = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(fc.string(), fc.oneof(member, fc.array(member, { maxLength: 20 }))),
      fc.array(fc.oneof(member, fc.dictionary(fc.string(), member)), { maxLength: 50 }),
    );
    await fc.assert(
      fc.asyncProperty(answer, async (value) => {
        const res = await raw(appSending(() => value));
        const expected = JSON.stringify(value) ?? 'null';
        expect(res.text).toBe(expected);
        expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(expected));
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      }),
      { numRuns: 150 },
    );
  });

  it('keeps a Date, or any value with toJSON, as JSON.stringify does', async () => {
    const value = { at: new Date(0), items: [new Date(1), { toJSON: () => 'x' }], n: 1n.toString() };
    expect((await raw(appSending(() => value))).text).toBe(JSON.stringify(value));
  });

  it('gives the event loop turns while it serializes a large answer', async () => {
    const row = (i: number) => ({ day: i, values: Array.from({ length: 400 }, (_, j) => (i * j) / 7) });
    const large = { cohorts: Array.from({ length: 1500 }, (_, i) => row(i)), has_more: false };
    let turns = 0;
    let serializing = false;
    const tick = () => {
      if (!serializing) return;
      turns++;
      setImmediate(tick);
    };
    const app = express();
    app.get('/', async (_req, res) => {
      serializing = true;
      setImmediate(tick);
      await sendJsonInSlices(res, 200, large);
      serializing = false;
    });
    const res = await raw(app);
    expect(JSON.parse(res.text).cohorts).toHaveLength(1500);
    // ~5 MB take tens of ms to serialize, in slices of ~2 ms with a turn after each (a
    // JSON.stringify in one piece would give none).
    expect(turns).toBeGreaterThan(3);
  });
});
