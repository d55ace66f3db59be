/** @jsxRuntime automatic @jsxImportSource preact */
import { NotFoundError, UserInputError } from '@svc/errors';
import express, { type Request, type Response, type Router } from 'express';
import { renderToString } from 'preact-render-to-string';
import type { Assistant } from '../assistant/assistant';
import type { Owner } from '../assistant/conversations';
import type { TurnEvent } from '../assistant/turn';
import type { ConsoleDeps } from '../console-deps';
import { pageContext } from '../page-context';
import { AssistantPage, AssistantSetupPage, TurnView } from '../pages/assistant';
import { href, type PageContext, sendPage } from '../pages/layout';
import { sessionOf } from '../session';

const MAX_QUESTION = 4000;
const CONVERSATION_ID = /^conv_[0-9a-f-]{36}$/;
const textOf = (value: unknown) => (typeof value === 'string' ? value : '');
const ownerOf = (ctx: PageContext): Owner => ({ userId: ctx.me.user_id, projectId: ctx.projectId });

/** The conversation a request names, when it is this person's on this project (else 404). */
async function conversationOf(assistant: Assistant, owner: Owner, id: string) {
  if (!CONVERSATION_ID.test(id)) throw new NotFoundError('No such conversation.');
  const found = await assistant.conversations.get(owner, id);
  if (!found) throw new NotFoundError('No such conversation.');
  return found;
}

/** The question asked and the conversation it continues, checked. */
async function askedOf(assistant: Assistant, ctx: PageContext, req: Request) {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const question = textOf(body.question).trim();
  if (question === '' || question.length > MAX_QUESTION) {
    throw new UserInputError(`Ask a question of 1 to ${MAX_QUESTION} characters.`);
  }
  const id = textOf(body.conversation);
  const conversation = id ? await conversationOf(assistant, ownerOf(ctx), id) : undefined;
  return { question, conversation };
}

/** The turn's events as NDJSON lines, flushed as they happen; the finished turn as page HTML. */
function streamTo(res: Response, ctx: PageContext, question: string) {
  res.status(200).set({
    'content-type': 'application/x-ndjson; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  return (event: TurnEvent) => {
    if (res.writableEnded || res.destroyed) return;
    const line =
      event.type === 'done'
        ? {
            type: 'done',
            conversation: event.conversationId,
            html: renderToString(
              <TurnView
                ctx={ctx}
                turn={{ question, answer: event.answer, steps: event.steps }}
                prefix={`turn-${Date.now()}`}
              />,
            ),
          }
        : event;
    res.write(`${JSON.stringify(line)}\n`);
  };
}

/** `/assistant`: the page, and a question's turn (streamed to the page's script, or whole). */
export function assistantRoutes(deps: ConsoleDeps): Router {
  const router = express.Router();
  const assistant = deps.assistant;

  router.get('/assistant', async (req, res) => {
    const ctx = pageContext(deps, req, res);
    if (!assistant) return sendPage(res, <AssistantSetupPage ctx={ctx} />);
    const owner = ownerOf(ctx);
    const id = textOf(req.query.c);
    const current = id ? await conversationOf(assistant, owner, id) : undefined;
    const conversations = await assistant.conversations.list(owner);
    sendPage(
      res,
      <AssistantPage
        ctx={ctx}
        conversations={conversations}
        current={current}
        question={textOf(req.query.q)}
      />,
    );
  });

  router.post('/assistant/ask', async (req, res) => {
    const ctx = pageContext(deps, req, res);
    if (!assistant) throw new NotFoundError('The assistant is not configured.');
    const { question, conversation } = await askedOf(assistant, ctx, req);
    const stop = new AbortController();
    // The page's Stop (or a closed tab) ends the request: the model call and every tool call in
    // flight follow this signal, down to the gateway's backend requests.
    res.on('close', () => {
      if (!res.writableFinished) stop.abort();
    });
    const streamed = req.get('accept')?.includes('application/x-ndjson') ?? false;
    let outcome: TurnEvent | undefined;
    const emit = streamed ? streamTo(res, ctx, question) : () => {};
    const asked = assistant.ask({
      owner: ownerOf(ctx),
      session: sessionOf(res).token,
      projectName: ctx.me.projects.find((p) => p.project_id === ctx.projectId)?.name ?? ctx.projectId,
      conversationId: conversation?.conversation_id,
      question,
      history: conversation?.turns ?? [],
      signal: stop.signal,
      emit: (event) => {
        if (event.type === 'done' || event.type === 'error' || event.type === 'stopped') outcome = event;
        emit(event);
      },
    });
    try {
      await asked;
    } catch (err) {
      // Whatever failed, a streamed page is told and its response ended (never left hanging).
      deps.logger.error({ err }, 'assistant: the turn failed');
      outcome = { type: 'error', message: 'The assistant failed. Try again.' };
      emit(outcome);
    }
    if (streamed) return void res.end();
    // Without the script: the finished conversation, or the page again with the error and the question.
    if (outcome?.type === 'done') {
      return void res.redirect(303, href('/assistant', ctx.projectId, { c: outcome.conversationId }));
    }
    const conversations = await assistant.conversations.list(ownerOf(ctx));
    const error = outcome?.type === 'error' ? outcome.message : 'The answer was stopped.';
    sendPage(
      res,
      <AssistantPage
        ctx={ctx}
        conversations={conversations}
        current={conversation}
        question={question}
        error={error}
      />,
      502,
    );
  });

  return router;
}
