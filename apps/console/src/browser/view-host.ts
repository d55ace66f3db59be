// The console as an MCP Apps host (/static/view-host.js): every tool answer marked up by
// ToolAnswerView (pages/tool-answer.tsx) is drawn by the tool's own view, the HTML the gateway's
// /mcp serves, in a sandboxed frame (scripts only: an opaque origin that cannot reach the
// console's cookies, pages or network), fed over the extension's own AppBridge: the view's
// ui/initialize, then the tool's input and result; a tool call the view makes (tools/call) goes
// through the console to the gateway as the person. Answers inserted later (a conversation that
// streams) are drawn as they arrive. Without this script the JSON under "Show JSON" is the answer.

import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

type CallToolResult = Awaited<ReturnType<NonNullable<AppBridge['oncalltool']>>>;

const SELECTOR = '[data-tool-view]';
const HOST_INFO = { name: 'svc-console', version: '1.0.0' };
const drawn = new WeakSet<Element>();

function parsed(text: string | null | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The session's CSRF token: every signed-in page has it in its sign-out form. */
const csrfToken = () => document.querySelector<HTMLInputElement>('input[name="_csrf"]')?.value;

/**
 * A view's tools/call, forwarded as every console call is: to the console, which calls the gateway
 * as the signed-in person (capability-checked, audited). The answer is the tool's, as MCP gives it.
 */
async function callTool(
  project: string,
  csrf: string,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const res = await fetch(`/tools/${encodeURIComponent(name)}/call?${new URLSearchParams({ project })}`, {
    method: 'POST',
    body: new URLSearchParams({ _csrf: csrf, arguments: JSON.stringify(args ?? {}) }),
  });
  const answer = (await res.json().catch(() => undefined)) as
    | { ok: true; result: Record<string, unknown> }
    | { ok: false; error: unknown }
    | undefined;
  if (answer?.ok)
    return {
      content: [{ type: 'text', text: JSON.stringify(answer.result) }],
      structuredContent: answer.result,
    };
  const error =
    answer?.ok === false
      ? answer.error
      : { error: 'unavailable', message: `The console answered ${res.status}.` };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(error) }] };
}

function draw(figure: HTMLElement): void {
  if (drawn.has(figure)) return;
  const src = figure.dataset.toolView;
  const tool = figure.dataset.tool ?? '';
  const slot = figure.querySelector('[data-tool-view-slot]');
  const json = figure.querySelector('pre.tool-result > code')?.textContent ?? '';
  const result = parsed(json);
  // Only the console's own views are framed, whatever markup a page was given.
  if (!src?.startsWith('/views/') || !slot || !isObject(result)) return;
  drawn.add(figure);
  const input = parsed(figure.dataset.toolInput);

  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = `${tool}, drawn by its view`;
  frame.className = 'tool-view';
  frame.src = src;
  slot.replaceChildren(frame);
  // The frame's window is the same object before and after it loads: the bridge listens from now
  // on, before the view's first message.
  const view = frame.contentWindow;
  if (!view) return;

  // A view may call tools (serverTools) where the page names the project and holds a session.
  const project = figure.dataset.project;
  const csrf = csrfToken();
  const bridge = new AppBridge(null, HOST_INFO, project && csrf ? { serverTools: {} } : {}, {
    hostContext: {
      theme: 'light',
      displayMode: 'inline',
      platform: 'web',
      toolInfo: { tool: { name: tool, inputSchema: { type: 'object' } } },
    },
  });
  if (project && csrf) bridge.oncalltool = ({ name, arguments: args }) => callTool(project, csrf, name, args);
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${height}px`;
  };
  bridge.oninitialized = () => {
    void bridge
      .sendToolInput({ arguments: isObject(input) ? input : {} })
      .then(() =>
        bridge.sendToolResult({ content: [{ type: 'text', text: json }], structuredContent: result }),
      )
      .then(() => figure.setAttribute('data-tool-view-state', 'drawn'));
  };
  void bridge.connect(new PostMessageTransport(view, view));
}

function drawAll(root: ParentNode): void {
  for (const figure of root.querySelectorAll<HTMLElement>(SELECTOR)) draw(figure);
}

new MutationObserver((records) => {
  for (const record of records)
    for (const node of record.addedNodes) {
      if (!(node instanceof HTMLElement)) continue;
      if (node.matches(SELECTOR)) draw(node);
      drawAll(node);
    }
}).observe(document.documentElement, { childList: true, subtree: true });
drawAll(document);
