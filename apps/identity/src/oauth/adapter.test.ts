import type { Postgres } from '@svc/postgres';
import { memoryPostgres } from '@svc/postgres/testing/memory';
import { migrateIdentity } from '../migrations';
import { pgAdapterClass, purgeExpiredOAuthModels } from './adapter';

let db: Postgres;
beforeAll(async () => {
  db = await memoryPostgres();
  await migrateIdentity(db);
});
afterAll(async () => {
  await db.close();
});

it('reads a model until it expires or is consumed, and purges only what expired', async () => {
  const Adapter = pgAdapterClass(db);
  const codes = new Adapter('AuthorizationCode');
  await codes.upsert('live', { grantId: 'g1', clientId: 'c' }, 60);
  await codes.upsert('short', { grantId: 'g1', clientId: 'c' }, 1);
  await codes.upsert('forever', { clientId: 'c' }, 0);
  expect(await codes.find('live')).toEqual({ grantId: 'g1', clientId: 'c' });
  await codes.consume('live');
  expect((await codes.find('live'))?.consumed).toEqual(expect.any(Number));

  const later = new Date(Date.now() + 2_000);
  expect(await purgeExpiredOAuthModels(db, later)).toBe(1);
  const { rows } = await db.query<{ id: string }>('SELECT id FROM oauth_models ORDER BY id');
  expect(rows.map((r) => r.id)).toEqual(['forever', 'live']);

  await codes.revokeByGrantId('g1');
  expect(await codes.find('live')).toBeUndefined();
  expect(await codes.find('forever')).toEqual({ clientId: 'c' });
});
