// The assistant page's script (progressive: without it the form posts and the page comes back
// with the answer). Asks with fetch and shows the turn as it streams: the model's text as plain
// text, each tool step as it starts and ends; Stop aborts the request, which cancels the model
// call and every tool call in flight. The finished turn is replaced by the server's rendering
// (sanitised Markdown, claims linked to their calls, tool answers drawn by their views).
const form = document.getElementById('ask-form');
if (form) {
  const live = document.getElementById('live');
  const turns = document.getElementById('turns');
  const askButton = document.getElementById('ask');
  const stopButton = document.getElementById('stop');
  let running;

  const element = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const words = {
    running: 'running…',
    ok: 'answered',
    error: 'failed',
    not_called: 'not called: budget spent',
  };

  stopButton.addEventListener('click', () => running?.abort());
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (running) return;
    const body = new URLSearchParams(new FormData(form));
    running = new AbortController();
    askButton.setAttribute('aria-busy', 'true');
    askButton.disabled = true;
    stopButton.hidden = false;
    const turn = element('article', 'turn');
    const question = element('p', 'question');
    question.append(element('strong', '', 'You: '), body.get('question'));
    const steps = element('ol', 'tool-steps');
    const text = element('div', 'answer streaming');
    const status = element('p', 'muted', 'Thinking…');
    turn.append(question, steps, text, status);
    live.replaceChildren(turn);
    const stepItems = new Map();
    const showError = (message) => {
      status.replaceChildren();
      const alert = element('p', 'error', message);
      alert.setAttribute('role', 'alert');
      turn.append(alert);
    };
    const handle = (e) => {
      if (e.type === 'text') {
        status.textContent = '';
        text.textContent += e.text;
      } else if (e.type === 'step') {
        const item = stepItems.get(e.step.n) ?? element('li');
        stepItems.set(e.step.n, item);
        item.dataset.status = e.step.status;
        item.replaceChildren(
          `#${e.step.n} `,
          element('code', '', e.step.tool),
          ' ',
          element('code', 'tool-input', JSON.stringify(e.step.input ?? {})),
          ' ',
          element('span', 'muted', words[e.step.status] ?? e.step.status),
        );
        steps.append(item);
      } else if (e.type === 'error') {
        showError(e.message);
      } else if (e.type === 'stopped') {
        status.textContent = 'Stopped. Nothing of this answer was kept.';
      } else if (e.type === 'done') {
        // The server's rendering of the finished turn (sanitised there), in place of the draft.
        turns.insertAdjacentHTML('beforeend', e.html);
        live.replaceChildren();
        form.elements.conversation.value = e.conversation;
        form.elements.question.value = '';
        const url = new URL(window.location.href);
        url.searchParams.set('c', e.conversation);
        url.searchParams.delete('q');
        history.replaceState(null, '', url);
      }
    };
    try {
      const res = await fetch(form.action, {
        method: 'POST',
        body,
        headers: { accept: 'application/x-ndjson' },
        signal: running.signal,
      });
      if (!res.ok || !res.body) {
        showError(`The console refused the question (HTTP ${res.status}). Reload the page and try again.`);
        return;
      }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
          handle(JSON.parse(buffer.slice(0, end)));
          buffer = buffer.slice(end + 1);
        }
      }
    } catch {
      if (running.signal.aborted) status.textContent = 'Stopped. Nothing of this answer was kept.';
      else showError('The connection to the console was lost. Try again.');
    } finally {
      running = undefined;
      askButton.removeAttribute('aria-busy');
      askButton.disabled = false;
      stopButton.hidden = true;
    }
  });
}
