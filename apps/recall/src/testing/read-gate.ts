import type { FileStore, StoredBytes } from '../file-store';

/**
 * A gate in front of the real file store, for tests that need reads held at a known point: while a
 * file is held, every read of its bytes waits (counted in `blocked`) until the file is let go. The
 * read has its slot by then, so a test can fill a project's share without timing anything.
 */
export interface ReadGate {
  hold(fileId: string): void;
  /** Lets the held reads of the file go on, or fail with `error` (the store failing under them). */
  letGo(fileId: string, error?: Error): void;
  /** Reads waiting at the gate now. */
  readonly blocked: number;
}

export function gatedFileStore(store: FileStore): { files: FileStore; gate: ReadGate } {
  const held = new Map<string, { opened: Promise<void>; open: (error?: Error) => void }>();
  let blocked = 0;
  const gate: ReadGate = {
    hold(fileId) {
      if (held.has(fileId)) return;
      let open!: (error?: Error) => void;
      const opened = new Promise<void>((resolve, reject) => {
        open = (error) => (error ? reject(error) : resolve());
      });
      // A gate nobody waits at must not count as an unhandled rejection.
      opened.catch(() => undefined);
      held.set(fileId, { opened, open });
    },
    letGo(fileId, error) {
      held.get(fileId)?.open(error);
      held.delete(fileId);
    },
    get blocked() {
      return blocked;
    },
  };
  const files: FileStore = {
    root: store.root,
    put: (projectId, fileId, bytes) => store.put(projectId, fileId, bytes),
    remove: (projectId, fileId) => store.remove(projectId, fileId),
    async open(projectId, fileId): Promise<StoredBytes> {
      const bytes = await store.open(projectId, fileId);
      return {
        size: bytes.size,
        async read(position, length) {
          const hold = held.get(fileId);
          if (hold) {
            blocked += 1;
            try {
              await hold.opened;
            } finally {
              blocked -= 1;
            }
          }
          return bytes.read(position, length);
        },
        close: () => bytes.close(),
      };
    },
  };
  return { files, gate };
}
