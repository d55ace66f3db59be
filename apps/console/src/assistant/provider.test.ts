import { dynamicTool, jsonSchema, stepCountIs, streamText } from 'ai';
import type { AssistantConfig } from '../config';
import { type Protocol, type ScriptedModel, startScriptedModel } from '../testing/scripted-model';
import { turnModel } from './provider';
import { providerErrorMessage } from './provider-errors';

// The model through the AI SDK's provider packages against our scripted provider over loopback
// HTTP, in both wire protocols: streamed text, a tool call and its result sent back, the key sent
// the provider's way, a 429's Retry-After in words, a stop that ends the request.

let model: ScriptedModel;
beforeAll(async () => {
  model = await startScriptedModel();
});
afterAll(async () => {
  await model.close();
});

const configOf = (protocol: Protocol): AssistantConfig => ({
  provider: protocol === 'openai' ? 'openai-compatible' : 'anthropic',
  baseUrl: model.url,
  apiKey: 'test-key',
  model: 'scripted',
  maxToolCalls: 4,
  maxResultChars: 10_000,
  timeoutMs: 120_000,
  database: { dataDir: ':memory:' },
});

const echo = dynamicTool({
  description: 'Echoes its input',
  inputSchema: jsonSchema({ type: 'object', properties: { word: { type: 'string' } } }),
  execute: async (input) => `<tool_result call="1">${JSON.stringify(input)}</tool_result>`,
});

describe.each<Protocol>(['openai', 'anthropic'])('the %s wire protocol', (protocol) => {
  it('streams text, calls a tool, and sends its result back for the answer', async () => {
    const before = model.requests.length;
    model.script([
      { text: ['Let me look. '], toolCalls: [{ name: 'echo', input: { word: 'crash' } }] },
      (request) => ({ text: ['Found ', `${request.toolResults.length} result [#1].`] }),
    ]);
    const result = streamText({
      model: turnModel(configOf(protocol)).model,
      prompt: 'which crash?',
      tools: { echo },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    const parts: string[] = [];
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') parts.push(part.text);
      if (part.type === 'tool-call') parts.push(`call ${part.toolName} ${JSON.stringify(part.input)}`);
      if (part.type === 'error') throw part.error;
    }
    expect(parts).toEqual(['Let me look. ', 'call echo {"word":"crash"}', 'Found ', '1 result [#1].']);
    const [first, second] = model.requests.slice(before);
    expect(first!.protocol).toBe(protocol);
    expect(first!.body.stream).toBe(true);
    expect(JSON.stringify(first!.body.tools)).toContain('echo');
    expect(second!.toolResults).toEqual(['<tool_result call="1">{"word":"crash"}</tool_result>']);
    if (protocol === 'openai') expect(first!.headers.authorization).toBe('Bearer test-key');
    else expect(first!.headers['x-api-key']).toBe('test-key');
  });

  it("words a 429 with the provider's Retry-After", async () => {
    model.script([{ status: 429, headers: { 'retry-after': '30' } }]);
    const result = streamText({
      model: turnModel(configOf(protocol)).model,
      prompt: 'hi',
      maxRetries: 0,
      onError: () => {},
    });
    let failure: unknown;
    for await (const part of result.fullStream) if (part.type === 'error') failure = part.error;
    expect(providerErrorMessage(failure, { timedOut: false, timeoutMs: 1, model: 'scripted', now: 0 })).toBe(
      'The model provider is rate limiting the assistant (HTTP 429). Try again in 30 seconds.',
    );
  });

  it('gives up on a provider that does not start answering in time, and says so', async () => {
    const cancelled = model.cancelled();
    model.script([{ silent: true }]);
    const config = { ...configOf(protocol), timeoutMs: 1000 };
    const turn = turnModel(config);
    const result = streamText({ model: turn.model, prompt: 'hi', maxRetries: 0, onError: () => {} });
    let failure: unknown;
    for await (const part of result.fullStream) if (part.type === 'error') failure = part.error;
    expect(turn.timedOut()).toBe(true);
    expect(
      providerErrorMessage(failure, {
        timedOut: turn.timedOut(),
        timeoutMs: 1000,
        model: 'scripted',
        now: 0,
      }),
    ).toBe('The model provider did not answer within 1 second. Try again.');
    await eventually(() => model.cancelled() > cancelled);
  });

  it('ends the request when the turn is stopped mid-answer', async () => {
    const cancelled = model.cancelled();
    model.script([{ hang: 'Thinking' }]);
    const stop = new AbortController();
    const result = streamText({
      model: turnModel(configOf(protocol)).model,
      prompt: 'hi',
      maxRetries: 0,
      abortSignal: stop.signal,
    });
    const seen: string[] = [];
    for await (const part of result.fullStream) {
      seen.push(part.type);
      if (part.type === 'text-delta') stop.abort();
    }
    expect(seen).toContain('abort');
    await eventually(() => model.cancelled() > cancelled);
  });
});

async function eventually(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('never happened');
    await new Promise((r) => setTimeout(r, 10));
  }
}
