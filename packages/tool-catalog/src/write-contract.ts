import { writeFileSync } from 'node:fs';
import { allTools } from './catalog';
import { CONTRACT_FILES } from './contract-files';
import { renderOpenApi, renderToolReference } from './reference';

// `pnpm contract`: writes docs/openapi.json and docs/tools.md from the registry. Review the diff:
// it is the change clients will see.
writeFileSync(CONTRACT_FILES.openapi, renderOpenApi(allTools));
writeFileSync(CONTRACT_FILES.reference, renderToolReference(allTools));
process.stdout.write(`wrote ${CONTRACT_FILES.openapi} and ${CONTRACT_FILES.reference}\n`);
