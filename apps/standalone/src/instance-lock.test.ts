import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AlreadyRunningError, acquireInstanceLock } from './instance-lock';

describe('instance lock', () => {
  it('takes a free lock and releases it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lock-'));
    const lock = acquireInstanceLock(dir);
    expect(readFileSync(join(dir, 'standalone.lock'), 'utf8')).toBe(String(process.pid));
    lock.release();
    expect(existsSync(join(dir, 'standalone.lock'))).toBe(false);
  });

  it('refuses while another live process holds it, with a clear message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lock-'));
    // Lives until killed below (a ceiling far beyond the test, however slow the machine).
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)']);
    try {
      writeFileSync(join(dir, 'standalone.lock'), String(child.pid));
      let caught: unknown;
      try {
        acquireInstanceLock(dir);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(AlreadyRunningError);
      expect((caught as Error).message).toContain(`pid ${child.pid}`);
    } finally {
      child.kill();
    }
  });

  it('takes over a stale lock whose process is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lock-'));
    const child = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => child.on('exit', r));
    writeFileSync(join(dir, 'standalone.lock'), String(child.pid));
    const lock = acquireInstanceLock(dir);
    expect(readFileSync(join(dir, 'standalone.lock'), 'utf8')).toBe(String(process.pid));
    lock.release();
  });
});
