import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointKeyId } from '@svc/audit';
import { ConfigError } from '@svc/config';
import { type LogLine, recordingLogger } from '../testing/harness';
import { CHECKPOINT_KEY_FILE, resolveCheckpointKey } from './checkpoint-key';
import { CHECKPOINT_LOG_FILE } from './file-checkpoint-store';

let root: string;
let dir: string;
let logs: LogLine[];
const resolve = (key?: string) => resolveCheckpointKey({ dir, key }, recordingLogger(logs));

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-checkpoint-key-'));
  dir = join(root, 'data', 'audit-checkpoints');
  logs = [];
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the checkpoint key', () => {
  it('comes from SVC_AUDIT_CHECKPOINT_KEY without touching the disk', async () => {
    const key = 'from-the-environment-0123456789-abcdef';
    expect(await resolve(key)).toEqual({ key, source: 'env', kid: checkpointKeyId(key) });
    await expect(stat(dir)).rejects.toThrow(/ENOENT/);
  });

  it('is generated once into a 0600 file, then read back', async () => {
    const made = await resolve();
    expect(made.source).toBe('generated');
    expect(made.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const file = join(dir, CHECKPOINT_KEY_FILE);
    expect(await readFile(file, 'utf8')).toBe(`${made.key}\n`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await resolve()).toEqual({ ...made, source: 'file' });
    expect(logs).toEqual([]);
  });

  it('is not generated anew beside a log that holds checkpoints', async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, CHECKPOINT_LOG_FILE), '{"v":1}\n');
    const refused = resolve();
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(resolve()).rejects.toThrow(
      `${join(dir, CHECKPOINT_KEY_FILE)} is missing but ${join(dir, CHECKPOINT_LOG_FILE)} holds checkpoints signed with it`,
    );
  });

  it('refuses a short key file and warns about one others can read', async () => {
    await mkdir(dir, { recursive: true });
    const file = join(dir, CHECKPOINT_KEY_FILE);
    await writeFile(file, 'short\n', { mode: 0o600 });
    await expect(resolve()).rejects.toThrow(/holds a key shorter than 32 characters/);
    await writeFile(file, `${'k'.repeat(40)}\n`);
    await chmod(file, 0o644);
    expect((await resolve()).source).toBe('file');
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        obj: expect.objectContaining({ event: 'audit_checkpoint_key_readable', mode: '644' }),
      }),
    );
  });
});
