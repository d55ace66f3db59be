// Test support shared with other packages (`@svc/identity/testing`): a real checkpoint log in a
// throwaway directory, for tests that need an identity app but do not look at its checkpoints.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@svc/logger';
import type { Logger } from '@svc/tool-kit';
import type { CheckpointStore } from '../checkpoints/checkpoint-store';
import { openFileCheckpointStore } from '../checkpoints/file-checkpoint-store';

/** A fresh random key, as identity generates one. */
export const newCheckpointKey = (): string => randomBytes(32).toString('base64url');

/** A checkpoint log under a new temporary directory, removed again by close(). */
export async function openThrowawayCheckpointStore(logger: Logger = silentLogger): Promise<CheckpointStore> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-checkpoints-'));
  const store = await openFileCheckpointStore({ dir, key: newCheckpointKey(), logger });
  return {
    location: store.location,
    append: (checkpoints) => store.append(checkpoints),
    read: () => store.read(),
    async close() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
