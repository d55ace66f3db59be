// The view's side of the MCP Apps protocol (ui/initialize, the tool result, the host's theme, the
// size it needs, tools/call through the host), spoken over postMessage with the host frame only.
// Written here rather than taken from the extension's App class: that class bundles the SDK
// client and zod (about 660 KB minified), which would be most of every view. The browser tests
// run every view against the extension's own AppBridge, so the two cannot drift unnoticed.

/** The extension's protocol revision this code speaks. */
const PROTOCOL_VERSION = '2026-01-26';

export interface ToolResult {
  content?: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface HostContext {
  theme?: 'light' | 'dark';
  styles?: { variables?: Record<string, string | undefined> };
  toolInfo?: { tool?: { name?: string } };
}

/** The view's way back to the server: a tool call the host forwards (through our gateway, auth and audit). */
export interface ViewHost {
  /** The tool's result; undefined when the host does not forward tool calls or the call failed. */
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult | undefined>;
}

export interface ViewHandlers {
  onResult(result: ToolResult, context: HostContext): void;
  onContext?(context: HostContext): void;
}

interface Message {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** Host style variables are CSS custom properties; nothing else is taken from them. */
function applyContext(context: HostContext): void {
  const root = document.documentElement;
  if (context.theme === 'light' || context.theme === 'dark') root.dataset.theme = context.theme;
  for (const [name, value] of Object.entries(context.styles?.variables ?? {}))
    if (name.startsWith('--') && typeof value === 'string') root.style.setProperty(name, value);
}

export function connectView(appName: string, handlers: ViewHandlers): ViewHost {
  const host = window.parent;
  let nextId = 1;
  let context: HostContext = {};
  let forwardsTools = false;
  const pending = new Map<number | string, (message: Message) => void>();
  const send = (message: Omit<Message, 'jsonrpc'>) => host.postMessage({ jsonrpc: '2.0', ...message }, '*');
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<Message>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      send({ id, method, params });
    });

  window.addEventListener('message', (event: MessageEvent) => {
    // Only the frame that embeds the view speaks for the host.
    if (event.source !== host) return;
    const message = event.data as Message;
    if (message?.jsonrpc !== '2.0') return;
    if (message.method === undefined && message.id !== undefined) {
      pending.get(message.id)?.(message);
      pending.delete(message.id);
      return;
    }
    const params = message.params ?? {};
    switch (message.method) {
      case 'ui/notifications/tool-result':
        handlers.onResult(params as ToolResult, context);
        break;
      case 'ui/notifications/host-context-changed':
        context = { ...context, ...(params as HostContext) };
        applyContext(context);
        handlers.onContext?.(context);
        break;
      case 'ui/resource-teardown':
      case 'ping':
        if (message.id !== undefined) send({ id: message.id, result: {} });
        break;
      default:
        // A request this view does not serve gets JSON-RPC's "method not found".
        if (message.id !== undefined)
          send({ id: message.id, error: { code: -32601, message: 'Method not found' } });
    }
  });

  new ResizeObserver(() => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    send({ method: 'ui/notifications/size-changed', params: { height } });
  }).observe(document.documentElement);

  void request('ui/initialize', {
    appInfo: { name: appName, version: '1.0.0' },
    appCapabilities: {},
    protocolVersion: PROTOCOL_VERSION,
  }).then((answer) => {
    context = (answer.result?.hostContext as HostContext | undefined) ?? {};
    // A host that forwards tool calls says so with the serverTools capability.
    forwardsTools = Boolean(
      (answer.result?.hostCapabilities as { serverTools?: object } | undefined)?.serverTools,
    );
    applyContext(context);
    send({ method: 'ui/notifications/initialized', params: {} });
  });

  return {
    async callTool(name, args) {
      if (!forwardsTools) return undefined;
      const answer = await request('tools/call', { name, arguments: args });
      return answer.error ? undefined : (answer.result as ToolResult | undefined);
    },
  };
}
