import { rm } from 'node:fs/promises';
import { removeTestBundles } from '@svc/standalone/testing';
import { packedPackages, TARBALLS_ENV } from './tarballs';

// jest's globalTeardown for sdk-e2e: removes the tarballs globalSetup packed (if it packed), and
// the stack bundles it built.
export default async function globalTeardown(): Promise<void> {
  removeTestBundles();
  if (!process.env[TARBALLS_ENV]) return;
  await rm(packedPackages().dir, { recursive: true, force: true });
  delete process.env[TARBALLS_ENV];
}
