// The overview's panels, each filled on its own from /overview/panels/<id>: a slow or failing tool
// holds up or blanks its own panel only. The fragment is the console's own server-rendered HTML.
for (const body of document.querySelectorAll('[data-panel-src]')) {
  const say = (text, state) => {
    const p = document.createElement('p');
    p.setAttribute('role', 'alert');
    p.className = 'notice error';
    p.dataset.panelState = state;
    p.textContent = text;
    body.replaceChildren(p);
  };
  fetch(body.getAttribute('data-panel-src'), { headers: { accept: 'text/html' } })
    .then(async (res) => {
      // A session that ended meanwhile is sent to the sign-in page.
      if (new URL(res.url).pathname === '/login')
        return say('Your session ended: reload the page to sign in.', 'failed');
      if (!res.ok) return say(`This panel could not be loaded (${res.status}).`, 'failed');
      const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
      body.replaceChildren(...doc.body.childNodes);
    })
    .catch(() => say('This panel could not be loaded: the console did not answer.', 'failed'))
    .finally(() => body.removeAttribute('aria-busy'));
}
