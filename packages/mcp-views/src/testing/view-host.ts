// A host page for the browser tests, the way an MCP Apps host embeds a view: the extension's own
// AppBridge and PostMessageTransport around a sandboxed iframe (scripts only, an opaque origin)
// holding the resource's HTML; after the view's ui/initialize, the tool result is sent to it.
// The view's tools/call requests go to `window.hostCallTool`, which the test exposes (playwright's
// exposeFunction) to call the real tool, as a host forwards them to its server; with
// `forwardsTools: false` the host announces no serverTools capability, like a host that forwards none.

import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

interface MountOptions {
  html: string;
  result: { content: { type: 'text'; text: string }[]; structuredContent: Record<string, unknown> };
  theme: 'light' | 'dark';
  forwardsTools?: boolean;
}

type CallToolResult = { content: unknown[]; structuredContent?: Record<string, unknown>; isError?: boolean };

declare global {
  interface Window {
    mountView(options: MountOptions): Promise<void>;
    hostCallTool?(params: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult>;
  }
}

window.mountView = async ({ html, result, theme, forwardsTools = true }) => {
  document.body.replaceChildren();
  document.documentElement.style.background = theme === 'dark' ? '#000' : '#fff';
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.title = 'Tool result view';
  iframe.style.cssText = 'width: 100%; height: 400px; border: 0; display: block';
  iframe.srcdoc = html;
  document.body.appendChild(iframe);
  const view = iframe.contentWindow;
  if (!view) throw new Error('no iframe window');
  const bridge = new AppBridge(
    null,
    { name: 'view-test-host', version: '1.0.0' },
    forwardsTools ? { serverTools: {} } : {},
    { hostContext: { theme, displayMode: 'inline', platform: 'web' } },
  );
  bridge.oncalltool = async (params) => {
    if (!window.hostCallTool) throw new Error('this host forwards no tool calls');
    return (await window.hostCallTool(params)) as Awaited<ReturnType<NonNullable<AppBridge['oncalltool']>>>;
  };
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(view, view));
  await initialized;
  await bridge.sendToolResult(result);
};
