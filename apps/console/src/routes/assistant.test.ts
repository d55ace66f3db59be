import { type ConsoleTestBed, csrfIn, signIn, startConsoleTestBed } from '../testing/console-harness';

// The assistant's page without a model configured: how to configure one, the runner meanwhile,
// and no question taken. (With a model, over the whole stack: apps/standalone/src/e2e/assistant.)

let bed: ConsoleTestBed;
beforeAll(async () => {
  bed = await startConsoleTestBed();
});
afterAll(async () => {
  await bed.close();
});

it('says how to configure a model (three lines for Ollama), links the runner, and takes no question', async () => {
  const u = await bed.user('assistant-off');
  const agent = await signIn(bed.consoleApp().app, u);
  const mcp = await agent.get(`/mcp?project=${u.projectId}`).expect(200);
  expect(mcp.text).toContain(`<a href="/assistant?project=${u.projectId}">Assistant</a>`);
  const page = await agent.get(`/assistant?project=${u.projectId}`).expect(200);
  expect(page.text).toContain(
    'ollama pull llama3.1\nSVC_ASSISTANT_BASE_URL=http://localhost:11434/v1\nSVC_ASSISTANT_MODEL=llama3.1',
  );
  expect(page.text).toContain(`<a href="/tools?project=${u.projectId}">tool runner</a>`);
  expect(page.text).not.toContain('id="ask-form"');
  const asked = await agent
    .post(`/assistant/ask?project=${u.projectId}`)
    .type('form')
    .send({ _csrf: csrfIn(mcp.text), question: 'which crash did 2.5.0 bring?' });
  expect(asked.status).toBe(404);
});
