import { createPostgres } from '@svc/postgres';
import { hasPostgresBinaries, startThrowawayCluster, type ThrowawayCluster } from '@svc/postgres/testing';
import request from 'supertest';
import { createIdentityApp } from './app';
import { CLIENT_ADDRESS_HEADER } from './client-address';
import { type Harness, recordingLogger, SECRET, seedProject, startHarness } from './testing/harness';
import { FORGET_AFTER_MS, GOOD_STANDING_MS, lockAfter, THROTTLE_RULES } from './throttle/policy';

// Password guessing at identity: console login and step-up, from one address or many (the console
// forwards the browser's address with the internal secret). An attack run signed in with the
// right password after 100 wrong ones in 23 s, and stepped up after 50 wrong ones.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});
// Every test starts after the counters of the ones before have been forgotten (the tests without
// a forwarded address all come from the same loopback address).
beforeEach(() => {
  h.clock.now += FORGET_AFTER_MS;
});

const { pair, account } = THROTTLE_RULES;

async function person(name: string, on: Harness = h) {
  const { orgId } = await seedProject(on, name);
  const email = `${name}@throttle.test`;
  const password = `password of ${name}`;
  await on.internal('post', '/internal/v1/admin/users').send({ email, password, org_id: orgId }).expect(201);
  return { email, password };
}

/** A login as the console sends it: the browser's address, vouched for by the internal secret. */
const loginFrom = (address: string, email: string, password: string) =>
  request(h.app)
    .post('/console/v1/login')
    .set('X-Internal-Secret', SECRET)
    .set(CLIENT_ADDRESS_HEADER, address)
    .send({ email, password });

/** Advances the fake clock past a refusal's Retry-After (nothing when it was not refused). */
const waitOut = (res: request.Response) => {
  if (res.status === 429) h.clock.now += Number(res.headers['retry-after']) * 1000;
};

async function metric(name: string, labels: string): Promise<number> {
  const text = await h.metrics.render();
  const line = text.split('\n').find((l) => l.startsWith(`svc_identity_${name}{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('one address guessing', () => {
  it('refuses the right password with 429 and Retry-After after 100 wrong logins', async () => {
    const u = await person('hundred');
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) {
      statuses.push(
        (
          await request(h.app)
            .post('/console/v1/login')
            .send({ email: u.email, password: `guess ${i}` })
        ).status,
      );
    }
    // The free failures and the one that sets the first lock are checked; the rest are refused
    // without looking at the password (the clock does not move here).
    const checked = pair.freeFailures + 1;
    expect(statuses).toEqual([...Array(checked).fill(401), ...Array(100 - checked).fill(429)]);
    const right = await request(h.app).post('/console/v1/login').send(u);
    expect(right.status).toBe(429);
    expect(right.headers['retry-after']).toBe(String(lockAfter(pair, checked) / 1000));
    expect(right.body).toEqual({
      error: 'rate_limited',
      message: 'Too many failed password attempts; try again in 1 second.',
    });
    expect(right.body.session_token).toBeUndefined();
    // Once the lock has passed the right password works, and the address starts over.
    h.clock.now += lockAfter(pair, checked);
    expect((await request(h.app).post('/console/v1/login').send(u)).status).toBe(200);
  });

  it('refuses the right password at step-up after 50 wrong ones', async () => {
    const u = await person('step-up');
    const session = (await request(h.app).post('/console/v1/login').send(u).expect(200)).body.session_token;
    const stepUp = (password: string) =>
      request(h.app).post('/console/v1/step-up').set('Authorization', `Bearer ${session}`).send({ password });
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) statuses.push((await stepUp(`guess ${i}`)).status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(pair.freeFailures + 1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50 - pair.freeFailures - 1);
    const right = await stepUp(u.password);
    expect(right.status).toBe(429);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('shares the counters of sign-in and step-up: a stolen session is no way around them', async () => {
    const u = await person('shared');
    const session = (await request(h.app).post('/console/v1/login').send(u).expect(200)).body.session_token;
    for (let i = 0; i <= pair.freeFailures; i++) {
      await request(h.app)
        .post('/console/v1/login')
        .send({ email: u.email, password: `guess ${i}` })
        .expect(401);
    }
    const stepUp = await request(h.app)
      .post('/console/v1/step-up')
      .set('Authorization', `Bearer ${session}`)
      .send({ password: u.password });
    expect(stepUp.status).toBe(429);
  });

  it('answers an unknown email exactly as a known one (no account enumeration)', async () => {
    const u = await person('known');
    const run = async (email: string) => {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        const res = await request(h.app)
          .post('/console/v1/login')
          .send({ email, password: `guess ${i}` });
        statuses.push(res.status, Number(res.headers['retry-after'] ?? 0));
      }
      return statuses;
    };
    const unknown = await run('nobody@throttle.test');
    h.clock.now += FORGET_AFTER_MS;
    expect(await run(u.email)).toEqual(unknown);
  });

  it('checks at most the free failures plus one of many concurrent guesses', async () => {
    const u = await person('concurrent');
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        request(h.app)
          .post('/console/v1/login')
          .send({ email: u.email, password: `guess ${i}` }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(pair.freeFailures + 1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30 - pair.freeFailures - 1);
  });
});

describe('many addresses', () => {
  /** An attacker who waits out every lock, so each guess is checked: `count` counted failures. */
  async function patientAttack(from: string, email: string, count: number) {
    let counted = 0;
    while (counted < count) {
      const res = await loginFrom(from, email, `guess ${counted}`);
      if (res.status === 401) counted++;
      else waitOut(res);
    }
  }

  it('holds the victim back from another address no longer than the account bound', async () => {
    const u = await person('victim');
    const known = '198.51.100.7';
    await loginFrom(known, u.email, u.password).expect(200);
    // Long enough for the account's lock to reach its maximum.
    const failures = account.freeFailures + 15;
    await patientAttack('203.0.113.5', u.email, failures);
    const startedAt = h.clock.now;

    // The attacker's own address is locked for long...
    const attacker = await loginFrom('203.0.113.5', u.email, u.password);
    expect(attacker.status).toBe(429);
    expect(Number(attacker.headers['retry-after'])).toBe(lockAfter(pair, failures) / 1000);
    // ...an address that signed in to the account before is not held back at all...
    await loginFrom(known, u.email, u.password).expect(200);
    // ...and a new address waits at most the account's longest lock, then signs in.
    const fresh = await loginFrom('192.0.2.44', u.email, u.password);
    expect(fresh.status).toBe(429);
    const wait = Number(fresh.headers['retry-after']);
    expect(wait).toBeLessThanOrEqual(account.maxMs / 1000);
    h.clock.now = startedAt + wait * 1000;
    await loginFrom('192.0.2.44', u.email, u.password).expect(200);
    // The attacker's address is still locked.
    expect((await loginFrom('203.0.113.5', u.email, u.password)).status).toBe(429);
  });

  it("does not count one address's failures against another beyond the account's", async () => {
    const u = await person('other-address');
    await patientAttack('203.0.113.9', u.email, pair.freeFailures + 3);
    // Below the account's free failures: another address is checked at once, its own count at 1.
    const before = h.logs.length;
    await loginFrom('192.0.2.80', u.email, 'wrong').expect(401);
    const event = h.logs.slice(before).find((l) => l.obj.security_event === 'password_failed')!;
    expect(event.obj.failures).toEqual({ pair: 1, account: pair.freeFailures + 4, address: 1 });
    expect(event.obj.address).toBe('192.0.2.80');
    expect(event.obj.account).toMatch(/^acct_[0-9a-f]{16}$/);
    expect(JSON.stringify(event.obj)).not.toContain(u.email);
    expect(JSON.stringify(event.obj)).not.toContain('wrong');
    await loginFrom('192.0.2.80', u.email, u.password).expect(200);
  });

  it('keeps good standing for 30 days after a sign-in', async () => {
    const u = await person('standing');
    await loginFrom('198.51.100.20', u.email, u.password).expect(200);
    await patientAttack('203.0.113.20', u.email, account.freeFailures + 5);
    await loginFrom('198.51.100.20', u.email, u.password).expect(200);
    h.clock.now += GOOD_STANDING_MS;
    await patientAttack('203.0.113.20', u.email, account.freeFailures + 5);
    // The last sign-in was 30 days ago: the account's lock holds this address back too.
    expect((await loginFrom('198.51.100.20', u.email, u.password)).status).toBe(429);
  });

  it('honours the forwarded address only with the internal secret', async () => {
    const u = await person('forwarded');
    const forged = await request(h.app)
      .post('/console/v1/login')
      .set(CLIENT_ADDRESS_HEADER, '192.0.2.1')
      .send(u);
    expect(forged.status).toBe(401);
    const wrongSecret = await request(h.app)
      .post('/console/v1/login')
      .set('X-Internal-Secret', 'not the secret')
      .set(CLIENT_ADDRESS_HEADER, '192.0.2.1')
      .send(u);
    expect(wrongSecret.status).toBe(401);
    const notAnAddress = await loginFrom('not-an-ip', u.email, u.password);
    expect(notAnAddress.status).toBe(400);
    expect(notAnAddress.body.message).toContain(CLIENT_ADDRESS_HEADER);
    // One browser's failures lock that browser's address, not the console's own.
    for (let i = 0; i < 10; i++) await loginFrom('192.0.2.2', u.email, `guess ${i}`);
    expect((await loginFrom('192.0.2.2', u.email, u.password)).status).toBe(429);
    await loginFrom('192.0.2.3', u.email, u.password).expect(200);
  });

  it('counts an IPv6 /64 as one address', async () => {
    const u = await person('ipv6');
    for (let i = 0; i <= pair.freeFailures; i++) {
      await loginFrom(`2001:db8:1:2::${(i + 1).toString(16)}`, u.email, `guess ${i}`).expect(401);
    }
    expect((await loginFrom('2001:db8:1:2:ffff::1', u.email, u.password)).status).toBe(429);
    await loginFrom('2001:db8:1:3::1', u.email, u.password).expect(200);
  });
});

describe('metrics and restarts', () => {
  it('counts every wrong password and every refusal', async () => {
    const u = await person('metrics');
    const failures = await metric('password_failures_total', 'kind="login"');
    const refusals = await metric('password_throttled_total', 'kind="login",scope="pair"');
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      statuses.push((await loginFrom('192.0.2.200', u.email, `guess ${i}`)).status);
    }
    expect(await metric('password_failures_total', 'kind="login"')).toBe(
      failures + statuses.filter((s) => s === 401).length,
    );
    expect(await metric('password_throttled_total', 'kind="login",scope="pair"')).toBe(
      refusals + statuses.filter((s) => s === 429).length,
    );
  });

  it('keeps its counters in the store: a restarted identity still refuses', async () => {
    const u = await person('restart');
    for (let i = 0; i <= pair.freeFailures; i++) {
      await loginFrom('192.0.2.90', u.email, `guess ${i}`).expect(401);
    }
    const restarted = createIdentityApp({
      db: h.db,
      internalSecret: SECRET,
      logger: recordingLogger([]),
      metrics: h.metrics,
      now: () => h.clock.now,
      checkpoints: h.checkpoints,
    });
    const res = await request(restarted)
      .post('/console/v1/login')
      .set('X-Internal-Secret', SECRET)
      .set(CLIENT_ADDRESS_HEADER, '192.0.2.90')
      .send(u);
    expect(res.status).toBe(429);
  });
});

// Several identity connections (or instances) on one PostgreSQL: concurrent guesses queue on the
// counters' row locks, so no more of them are checked than from one connection.
const describeWithServer = hasPostgresBinaries ? describe : describe.skip;
describeWithServer('on PostgreSQL 15', () => {
  let cluster: ThrowawayCluster;
  let pg: Harness;
  beforeAll(async () => {
    cluster = await startThrowawayCluster();
    pg = await startHarness(await createPostgres({ url: cluster.url, maxConnections: 8 }));
  });
  afterAll(async () => {
    await pg?.close();
    await cluster?.stop();
  });

  it('checks at most the free failures plus one of many concurrent guesses, then refuses the right one', async () => {
    const u = await person('concurrent-pg', pg);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        request(pg.app)
          .post('/console/v1/login')
          .send({ email: u.email, password: `guess ${i}` }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(pair.freeFailures + 1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30 - pair.freeFailures - 1);
    expect((await request(pg.app).post('/console/v1/login').send(u)).status).toBe(429);
    pg.clock.now += lockAfter(pair, pair.freeFailures + 1);
    await request(pg.app).post('/console/v1/login').send(u).expect(200);
  });
});
