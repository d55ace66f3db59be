import {
  type ClickHouse,
  createTestClickHouse,
  dropTestClickHouse,
  type Migration,
  runMigrations,
} from './index';

const migrations: Migration[] = [
  {
    version: 2,
    name: 'add note',
    statements: ['ALTER TABLE notes ADD COLUMN IF NOT EXISTS note String'],
  },
  {
    version: 1,
    name: 'notes',
    statements: ['CREATE TABLE IF NOT EXISTS notes (id UInt32) ENGINE = MergeTree ORDER BY id'],
  },
];

describe('runMigrations', () => {
  let ch: ClickHouse;
  beforeAll(async () => {
    ch = await createTestClickHouse('migrations');
  });
  afterAll(async () => {
    await dropTestClickHouse(ch);
  });

  it('applies in version order, records each, and skips them on the next start', async () => {
    const first = await runMigrations(ch, migrations);
    expect(first).toEqual({ applied: [1, 2], skipped: [] });
    await ch.insert('notes', [{ id: 1, note: 'x' }]);
    const second = await runMigrations(ch, migrations);
    expect(second).toEqual({ applied: [], skipped: [1, 2] });
    const recorded = await ch.query<{ version: number; name: string }>(
      'SELECT version, name FROM schema_migrations ORDER BY version',
    );
    expect(recorded).toEqual([
      { version: 1, name: 'notes' },
      { version: 2, name: 'add note' },
    ]);
  });

  it('applies only the new one when a migration is added', async () => {
    const more = [
      ...migrations,
      { version: 3, name: 'third', statements: ['ALTER TABLE notes ADD COLUMN IF NOT EXISTS n2 UInt8'] },
    ];
    expect(await runMigrations(ch, more)).toEqual({ applied: [3], skipped: [1, 2] });
  });

  it('rejects duplicate versions before touching the database', async () => {
    const dup = [migrations[0]!, { ...migrations[0]!, name: 'again' }];
    await expect(runMigrations(ch, dup)).rejects.toThrow(/duplicate migration version 2/);
  });
});
