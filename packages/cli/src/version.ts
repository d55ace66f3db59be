import { createRequire } from 'node:module';

/** The package's version: package.json is one directory up from src/ and from dist/ alike. */
export function cliVersion(): string {
  try {
    return (createRequire(import.meta.url)('../package.json') as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}
