import { rm } from 'node:fs/promises';
import { packedPackages, TARBALLS_ENV } from './tarballs';

// jest's globalTeardown for sdk-e2e: removes the tarballs globalSetup packed (if it packed).
export default async function globalTeardown(): Promise<void> {
  if (!process.env[TARBALLS_ENV]) return;
  await rm(packedPackages().dir, { recursive: true, force: true });
  delete process.env[TARBALLS_ENV];
}
