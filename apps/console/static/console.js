// Progressive enhancement only: every page works without this script.
// Copy buttons: <button data-copy="ID"> copies the text (or value) of the element with that id.
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (!button) return;
  const source = document.getElementById(button.getAttribute('data-copy'));
  if (!source) return;
  const text = 'value' in source ? source.value : source.textContent;
  const label = button.textContent;
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    // No clipboard access (an http page other than localhost): select it for Ctrl+C instead.
    if ('select' in source) source.select();
    else window.getSelection()?.selectAllChildren(source);
    button.textContent = 'Press Ctrl+C';
  }
  setTimeout(() => {
    button.textContent = label;
  }, 2000);
});
