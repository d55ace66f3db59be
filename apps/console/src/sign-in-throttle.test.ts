import request from 'supertest';
import { type ConsoleTestBed, csrfIn, signIn, startConsoleTestBed } from './testing/console-harness';

// Password guessing through the console's own forms. Identity throttles every password check per
// account and per client address; the console tells it the browser's address (with the internal
// secret), shows the wait on a refusal, and sends Retry-After. An attack run signed in with the
// right password after 40 wrong ones.

let bed: ConsoleTestBed;
beforeAll(async () => {
  bed = await startConsoleTestBed();
});
afterAll(async () => {
  await bed.close();
});

const HOUR = 60 * 60_000;
// Each test starts after what the ones before counted has been forgotten (identity keeps failures
// for an hour; every browser here comes from the same loopback address unless it says otherwise).
beforeEach(() => {
  bed.h.clock.now += HOUR;
});

/** One sign-in through the form, as a browser would (its own form, its own cookie). */
async function signInForm(
  app: Parameters<typeof request.agent>[0],
  email: string,
  password: string,
  xff?: string,
) {
  const agent = request.agent(app);
  const form = await agent.get('/login').expect(200);
  const post = agent.post('/login').type('form');
  if (xff) post.set('X-Forwarded-For', xff);
  return post.send({ _csrf: csrfIn(form.text), email, password });
}

/** The security events identity logged since `from`, as [address, event]. */
const eventsSince = (from: number) =>
  bed.h.logs
    .slice(from)
    .filter((l) => typeof l.obj.security_event === 'string')
    .map((l) => [l.obj.address, l.obj.security_event]);

it('refuses the right password after 40 wrong ones with 429, the wait on the page and Retry-After', async () => {
  const u = await bed.user('forty');
  const { app } = bed.consoleApp();
  const statuses: number[] = [];
  for (let i = 0; i < 40; i++) statuses.push((await signInForm(app, u.email, `guess ${i}`)).status);
  expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
  expect(statuses.at(-1)).toBe(429);
  const right = await signInForm(app, u.email, u.password);
  expect(right.status).toBe(429);
  const wait = Number(right.headers['retry-after']);
  expect(wait).toBeGreaterThan(0);
  expect(right.text).toContain(
    `Too many failed password attempts. Try again in ${wait === 1 ? '1 second' : `${wait} seconds`}.`,
  );
  expect(right.headers['set-cookie']?.toString() ?? '').not.toContain('svc_ses_');
  // The form keeps the email, so only the wait stands between the person and signing in.
  expect(right.text).toContain(`value="${u.email}"`);
  bed.h.clock.now += wait * 1000;
  expect((await signInForm(app, u.email, u.password)).status).toBe(303);
});

it("counts the browser's address, not the console's: one browser's guesses do not lock out another", async () => {
  const u = await bed.user('two-browsers');
  // Behind a reverse proxy on loopback that says who the browser is.
  const { app } = bed.consoleApp({ trustedProxies: ['loopback'] });
  const from = bed.h.logs.length;
  for (let i = 0; i < 12; i++) await signInForm(app, u.email, `guess ${i}`, '203.0.113.50');
  expect((await signInForm(app, u.email, u.password, '203.0.113.50')).status).toBe(429);
  expect((await signInForm(app, u.email, u.password, '198.51.100.60')).status).toBe(303);
  const addresses = new Set(eventsSince(from).map(([address]) => address));
  expect([...addresses]).toEqual(['203.0.113.50']);
});

it('ignores X-Forwarded-For unless it comes from a trusted proxy', async () => {
  const u = await bed.user('spoofed');
  const { app } = bed.consoleApp();
  const from = bed.h.logs.length;
  // Each guess claims another address: all count under the one the console sees.
  for (let i = 0; i < 12; i++) await signInForm(app, u.email, `guess ${i}`, `203.0.113.${i + 1}`);
  expect((await signInForm(app, u.email, u.password, '198.51.100.99')).status).toBe(429);
  const addresses = new Set(eventsSince(from).map(([address]) => address));
  expect([...addresses]).toEqual(['127.0.0.1']);
});

it('refuses the right password at step-up after wrong ones, and says how long to wait', async () => {
  const u = await bed.user('step-up-guesses');
  const { app } = bed.consoleApp();
  const agent = await signIn(app, u);
  const csrf = csrfIn((await agent.get('/mcp').expect(200)).text);
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++) {
    statuses.push(
      (
        await agent
          .post('/mcp/step-up')
          .type('form')
          .send({ _csrf: csrf, password: `guess ${i}` })
      ).status,
    );
  }
  expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
  const right = await agent.post('/mcp/step-up').type('form').send({ _csrf: csrf, password: u.password });
  expect(right.status).toBe(429);
  const wait = Number(right.headers['retry-after']);
  expect(right.text).toContain(
    `Too many failed password attempts. Try again in ${wait === 1 ? '1 second' : `${wait} seconds`}.`,
  );
  expect(right.text).not.toContain('id="create-token"');
});
