// Test support: a model provider of our own over real loopback HTTP, speaking both wire protocols
// the assistant supports: OpenAI's chat completions (POST /v1/chat/completions) and Anthropic's
// Messages (POST /v1/messages), each streamed as server-sent events, with tool calls. A test
// scripts what the model does, one reply per request, and reads what the assistant sent.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Protocol = 'openai' | 'anthropic';

/** What the model does for one request. */
export type Reply =
  /** Streams text (in these chunks), then tool calls, if any: the model's turn ends asking for them. */
  | { text?: string[]; toolCalls?: { name: string; input: Record<string, unknown> }[] }
  /** Answers an HTTP error (429 with Retry-After, 401, 503...). */
  | { status: number; headers?: Record<string, string>; error?: string }
  /** Starts streaming one text chunk, then says nothing more until the client goes away. */
  | { hang: string }
  /** Answers nothing at all, not even headers, until the client goes away. */
  | { silent: true };

/** A reply, or one written from the request (e.g. quoting a tool result the assistant sent). */
export type Scripted = Reply | ((request: ModelRequest) => Reply);

export interface ModelRequest {
  protocol: Protocol;
  /** The request body as sent (model, messages, tools, system...). */
  body: Record<string, unknown> & { tools?: unknown[] };
  headers: IncomingMessage['headers'];
  /** The tool results the request carries, as the model reads them (text). */
  toolResults: string[];
}

export interface ScriptedModel {
  /** The API base: `<url>` for SVC_ASSISTANT_BASE_URL (both protocols live under it). */
  url: string;
  /** Replaces what is left of the script: one reply per request, in order. */
  script(replies: Scripted[]): void;
  requests: ModelRequest[];
  /** Requests whose client went away before the reply was complete. */
  cancelled(): number;
  close(): Promise<void>;
}

function toolResultsOf(protocol: Protocol, body: Record<string, unknown>): string[] {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  if (protocol === 'openai') {
    return messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
  }
  return messages.flatMap((m) =>
    Array.isArray(m.content)
      ? m.content
          .filter((c: { type?: string }) => c.type === 'tool_result')
          .map((c: { content: unknown }) =>
            typeof c.content === 'string'
              ? c.content
              : (c.content as { text?: string }[]).map((p) => p.text ?? '').join(''),
          )
      : [],
  );
}

const sse = (res: ServerResponse, data: unknown, event?: string) =>
  res.write(
    `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`,
  );

let ids = 0;

function streamOpenAi(
  res: ServerResponse,
  reply: { text?: string[]; toolCalls?: { name: string; input: unknown }[] },
) {
  const chunk = (delta: unknown, finish: string | null = null) =>
    sse(res, {
      id: 'chatcmpl-scripted',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'scripted',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  chunk({ role: 'assistant', content: '' });
  for (const text of reply.text ?? []) chunk({ content: text });
  (reply.toolCalls ?? []).forEach((call, index) => {
    const args = JSON.stringify(call.input);
    const half = Math.floor(args.length / 2);
    chunk({
      tool_calls: [
        {
          index,
          id: `call_${++ids}`,
          type: 'function',
          function: { name: call.name, arguments: args.slice(0, half) },
        },
      ],
    });
    chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] });
  });
  chunk({}, reply.toolCalls?.length ? 'tool_calls' : 'stop');
  sse(res, '[DONE]');
  res.end();
}

function streamAnthropic(
  res: ServerResponse,
  reply: { text?: string[]; toolCalls?: { name: string; input: unknown }[] },
) {
  const event = (type: string, data: Record<string, unknown>) => sse(res, { type, ...data }, type);
  event('message_start', {
    message: {
      id: `msg_${++ids}`,
      type: 'message',
      role: 'assistant',
      model: 'scripted',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 0 },
    },
  });
  let index = 0;
  if (reply.text?.length) {
    event('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const text of reply.text)
      event('content_block_delta', { index, delta: { type: 'text_delta', text } });
    event('content_block_stop', { index });
    index += 1;
  }
  for (const call of reply.toolCalls ?? []) {
    event('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: `toolu_${++ids}`, name: call.name, input: {} },
    });
    event('content_block_delta', {
      index,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.input) },
    });
    event('content_block_stop', { index });
    index += 1;
  }
  const stop = reply.toolCalls?.length ? 'tool_use' : 'end_turn';
  event('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } });
  event('message_stop', {});
  res.end();
}

function answerError(
  res: ServerResponse,
  protocol: Protocol,
  reply: { status: number; headers?: Record<string, string>; error?: string },
) {
  const message = reply.error ?? `scripted ${reply.status}`;
  const body =
    protocol === 'openai'
      ? { error: { message, type: 'scripted_error', code: String(reply.status) } }
      : { type: 'error', error: { type: 'scripted_error', message } };
  res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  res.end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  let queue: Scripted[] = [];
  const requests: ModelRequest[] = [];
  let cancelled = 0;
  const server = createServer(async (req, res) => {
    const protocol: Protocol | undefined =
      req.method === 'POST' && req.url === '/v1/chat/completions'
        ? 'openai'
        : req.method === 'POST' && req.url === '/v1/messages'
          ? 'anthropic'
          : undefined;
    if (!protocol) return void res.writeHead(404).end();
    const body = await bodyOf(req);
    const request = { protocol, body, headers: req.headers, toolResults: toolResultsOf(protocol, body) };
    requests.push(request);
    res.on('close', () => {
      if (!res.writableFinished) cancelled += 1;
    });
    const next = queue.shift();
    const reply: Reply =
      next === undefined
        ? { status: 500, error: 'the scripted model has no reply left for this request' }
        : typeof next === 'function'
          ? next(request)
          : next;
    if ('status' in reply) return answerError(res, protocol, reply);
    if ('silent' in reply) return;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if ('hang' in reply) {
      // The first words, then silence: only the client's going away ends this request.
      if (protocol === 'openai') streamOpenAiStart(res, reply.hang);
      else streamAnthropicStart(res, reply.hang);
      return;
    }
    if (protocol === 'openai') streamOpenAi(res, reply);
    else streamAnthropic(res, reply);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    script(replies) {
      queue = [...replies];
    },
    requests,
    cancelled: () => cancelled,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function streamOpenAiStart(res: ServerResponse, text: string) {
  sse(res, {
    id: 'chatcmpl-scripted',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'scripted',
    choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }],
  });
}

function streamAnthropicStart(res: ServerResponse, text: string) {
  const message = { id: `msg_${++ids}`, type: 'message', role: 'assistant', model: 'scripted', content: [] };
  sse(
    res,
    { type: 'message_start', message: { ...message, usage: { input_tokens: 1, output_tokens: 0 } } },
    'message_start',
  );
  sse(
    res,
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    'content_block_start',
  );
  sse(
    res,
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
    'content_block_delta',
  );
}
