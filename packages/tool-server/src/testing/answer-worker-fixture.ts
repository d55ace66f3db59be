// Test-only: an answer worker that serves the fixture tools (answer-workers.test.ts).
import { serveAnswerChecks } from '../answer-worker-runtime';
import { echoTool, rowsTool } from './fixtures';

serveAnswerChecks([echoTool, rowsTool]);
