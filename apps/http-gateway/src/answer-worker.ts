// An answer worker of the gateway (@svc/tool-server's answer-workers.ts): it checks large backend
// answers against the same tools the gateway's registry holds. Built to dist/answer-worker.js
// beside the bundle that starts it.
import { allTools } from '@svc/tool-catalog';
import { serveAnswerChecks } from '@svc/tool-server/answer-worker-runtime';

serveAnswerChecks(allTools);
