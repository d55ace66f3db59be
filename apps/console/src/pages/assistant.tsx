/** @jsxRuntime automatic @jsxImportSource preact */
import type { Conversation, Turn } from '../assistant/conversations';
import type { ToolStep } from '../assistant/gateway-tools';
import { renderAnswer } from '../assistant/markdown';
import { CsrfField, href, Layout, type PageContext } from './layout';
import { ToolAnswerView } from './tool-answer';

// The assistant: a conversation about the chosen project, answered by a model that calls the
// gateway's read tools. Without JavaScript a question is answered when the page comes back; with
// it (/static/assistant.js) tokens and tool steps appear as they happen and Stop cancels the turn.
// The answer is Markdown rendered safe (assistant/markdown.ts); tool answers are drawn by their
// views like the runner's, JSON one click away.

/** The tool runner with this call's input filled in: the claim's evidence, run again. */
export const runnerHref = (projectId: string, tool: string, input: unknown) =>
  href(`/tools/${encodeURIComponent(tool)}`, projectId, { input: JSON.stringify(input ?? {}) });

const STATUS_WORDS: Record<ToolStep['status'], string> = {
  running: 'running…',
  ok: 'answered',
  error: 'failed',
  not_called: 'not called: the turn’s budget of tool calls was spent',
};

export function ToolSteps({ ctx, steps, prefix }: { ctx: PageContext; steps: ToolStep[]; prefix: string }) {
  if (steps.length === 0) return null;
  return (
    <ol class="tool-steps">
      {steps.map((s) => (
        <li key={s.n} id={`${prefix}-call-${s.n}`} data-status={s.status}>
          <span>{`#${s.n} `}</span>
          <a href={runnerHref(ctx.projectId, s.tool, s.input)}>
            <code>{s.tool}</code>
          </a>{' '}
          <code class="tool-input">{JSON.stringify(s.input ?? {})}</code>{' '}
          <span class="muted">
            {STATUS_WORDS[s.status]}
            {s.cut ? ` · cut to ${s.sentChars} characters for the model` : ''}
          </span>
          {s.error ? <p class="muted">{s.error}</p> : null}
          {s.status === 'ok' && s.result !== undefined ? (
            <ToolAnswerView
              id={`${prefix}-answer-${s.n}`}
              tool={s.tool}
              input={(s.input ?? {}) as Record<string, unknown>}
              result={s.result}
            />
          ) : null}
        </li>
      ))}
    </ol>
  );
}

/** One question and its answer; also sent alone as the streamed turn's final form. */
export function TurnView({
  ctx,
  turn,
  prefix,
}: {
  ctx: PageContext;
  turn: Pick<Turn, 'question' | 'answer' | 'steps'>;
  prefix: string;
}) {
  const byNumber = new Map(turn.steps.map((s) => [s.n, s]));
  const html = renderAnswer(turn.answer, (n) => {
    const step = byNumber.get(n);
    return step ? runnerHref(ctx.projectId, step.tool, step.input) : undefined;
  });
  return (
    <article class="turn" id={prefix}>
      <p class="question">
        <strong>You: </strong>
        {turn.question}
      </p>
      <ToolSteps ctx={ctx} steps={turn.steps} prefix={prefix} />
      {/* renderAnswer escapes every character of the model's text and allows no HTML of its own. */}
      <div class="answer" dangerouslySetInnerHTML={{ __html: html }} />
    </article>
  );
}

export function AssistantPage({
  ctx,
  conversations,
  current,
  question,
  error,
}: {
  ctx: PageContext;
  conversations: Conversation[];
  current: (Conversation & { turns: Turn[] }) | undefined;
  question: string;
  error?: string;
}) {
  return (
    <Layout ctx={ctx} section="assistant" title="Assistant" views>
      <script src="/static/assistant.js" defer />
      <div class="assistant">
        <nav aria-label="Conversations" class="conversations">
          <a href={href('/assistant', ctx.projectId)}>New conversation</a>
          <ul>
            {conversations.map((c) => (
              <li key={c.conversation_id}>
                <a
                  href={href('/assistant', ctx.projectId, { c: c.conversation_id })}
                  aria-current={c.conversation_id === current?.conversation_id ? 'page' : undefined}
                >
                  {c.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <section class="conversation" aria-label="Conversation">
          <p class="muted">
            Answers come from this project's tools, called through the gateway as you (audited as the console
            assistant); each claim links to the calls behind it.
          </p>
          <div id="turns">
            {current?.turns.map((t) => (
              <TurnView key={t.seq} ctx={ctx} turn={t} prefix={`turn-${t.seq}`} />
            ))}
          </div>
          <div id="live" aria-live="polite" />
          {error ? (
            <p role="alert" class="error">
              {error}
            </p>
          ) : null}
          <form method="post" action={href('/assistant/ask', ctx.projectId)} id="ask-form">
            <CsrfField csrf={ctx.csrf} />
            <input type="hidden" name="conversation" value={current?.conversation_id ?? ''} />
            <label for="question">Ask about this project</label>
            <textarea id="question" name="question" rows={3} maxLength={4000} required>
              {question}
            </textarea>
            <div class="ask-buttons">
              <button type="submit" id="ask">
                Ask
              </button>
              <button type="button" id="stop" class="secondary" hidden>
                Stop
              </button>
            </div>
          </form>
        </section>
      </div>
    </Layout>
  );
}

/** No model configured: how to configure one, and the runner meanwhile. Nothing is invented. */
export function AssistantSetupPage({ ctx }: { ctx: PageContext }) {
  return (
    <Layout ctx={ctx} section="assistant" title="Assistant">
      <h1>Assistant</h1>
      <p>
        No model is configured, so the assistant is off. An operator names one in the console's environment
        and restarts it. For a model on this computer with <a href="https://ollama.com">Ollama</a>:
      </p>
      <pre>
        <code>
          {
            'ollama pull llama3.1\nSVC_ASSISTANT_BASE_URL=http://localhost:11434/v1\nSVC_ASSISTANT_MODEL=llama3.1'
          }
        </code>
      </pre>
      <p>
        OpenAI, a llama.cpp server or vLLM take the same two variables, with{' '}
        <code>SVC_ASSISTANT_API_KEY</code> when they need a key. Anthropic takes{' '}
        <code>SVC_ASSISTANT_PROVIDER=anthropic</code>, the model and the key.
      </p>
      <p>
        Meanwhile the <a href={href('/tools', ctx.projectId)}>tool runner</a> calls the same tools.
      </p>
    </Layout>
  );
}
