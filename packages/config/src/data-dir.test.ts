import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRepositoryRoot, resolveDataDir } from './data-dir';

const repo = findRepositoryRoot(fileURLToPath(new URL('.', import.meta.url)))!;

describe('resolveDataDir', () => {
  it('defaults to .data at the repository root from any working directory', () => {
    expect(repo).toBeDefined();
    for (const cwd of [repo, join(repo, 'apps/standalone'), join(repo, 'apps/identity/src/cli'), '/']) {
      expect(resolveDataDir({}, cwd)).toBe(join(repo, '.data'));
      expect(resolveDataDir({ INIT_CWD: '/tmp', SVC_DATA_DIR: '' }, cwd)).toBe(join(repo, '.data'));
    }
  });

  it('takes an absolute SVC_DATA_DIR as it is', () => {
    expect(resolveDataDir({ SVC_DATA_DIR: '/var/lib/svc' }, join(repo, 'apps/standalone'))).toBe(
      '/var/lib/svc',
    );
  });

  it('reads a relative SVC_DATA_DIR from where the command was typed (INIT_CWD), not the package', () => {
    expect(resolveDataDir({ SVC_DATA_DIR: 'mine', INIT_CWD: repo }, join(repo, 'apps/standalone'))).toBe(
      join(repo, 'mine'),
    );
    expect(resolveDataDir({ SVC_DATA_DIR: './mine' }, '/srv')).toBe(resolve('/srv/mine'));
  });

  it('finds no repository above the file system root', () => {
    expect(findRepositoryRoot('/')).toBeUndefined();
  });
});
