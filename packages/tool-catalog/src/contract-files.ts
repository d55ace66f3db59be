import { fileURLToPath } from 'node:url';

/** Where the published contract is committed (repository docs/). */
export const CONTRACT_FILES = {
  openapi: fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url)),
  reference: fileURLToPath(new URL('../../../docs/tools.md', import.meta.url)),
};
