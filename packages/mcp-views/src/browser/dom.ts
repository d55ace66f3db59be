// Building the view's DOM. Text from the data is attacker-controlled (operation names, event names,
// signatures, attributes): it only ever becomes a Text node or an attribute value, never markup.

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | undefined>;

function setAttributes(element: Element, attributes: Attributes): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
}

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element; strings and numbers among the children become text. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  append(element, children);
  return element;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element (bars, lines, cells): geometry is attributes, labels are <title> text. */
export function svg(tag: string, attributes: Attributes = {}, ...children: Child[]): SVGElement {
  const element = document.createElementNS(SVG_NS, tag) as SVGElement;
  setAttributes(element, attributes);
  append(element, children);
  return element;
}

/** Replaces the view's content: one root per answer, so a second result redraws cleanly. */
export function render(...children: Child[]): void {
  const root = document.getElementById('view');
  if (!root) return;
  root.replaceChildren();
  append(root, children);
}

/** What the view says when the result is an error or carries no structured content. */
export function renderMessage(text: string): void {
  render(h('p', { class: 'message', role: 'status' }, text));
}
