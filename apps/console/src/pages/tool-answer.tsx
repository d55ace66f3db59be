/** @jsxRuntime automatic @jsxImportSource preact */
import { toolViewOf } from '../views/tool-views';

// A tool's answer on a page: drawn by the tool's MCP Apps view when it has one (the host script,
// /static/view-host.js, frames and feeds it; the page's Layout loads that script when given
// `views`), its JSON one click away; the JSON alone for a tool without a view. The JSON is printed
// as text (JSX escapes it) and is what the view is fed: what is drawn is what is shown.

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

export interface ToolAnswerViewProps {
  /** Unique in the page: the figure's id; the JSON's `<code>` is `<id>-json` unless `jsonId` says. */
  id: string;
  tool: string;
  input: Record<string, unknown>;
  /** The tool's result (REST's answer, MCP's structuredContent). */
  result: unknown;
  jsonId?: string;
  /** The project whose tools a view may call through the page (MCP Apps' tools/call); none: no calls. */
  projectId?: string;
}

export function ToolAnswerView({
  id,
  tool,
  input,
  result,
  jsonId = `${id}-json`,
  projectId,
}: ToolAnswerViewProps) {
  const view = toolViewOf(tool);
  const json = (
    <pre class="tool-result">
      <code id={jsonId}>{pretty(result)}</code>
    </pre>
  );
  if (!view) return <div id={id}>{json}</div>;
  return (
    <figure
      class="tool-answer"
      id={id}
      data-tool={tool}
      data-tool-view={view.src}
      data-tool-view-uri={view.uri}
      data-tool-input={JSON.stringify(input)}
      data-project={projectId}
    >
      <div class="tool-view-frame" data-tool-view-slot="">
        <p class="muted">{`${view.title}: drawn here by the tool's view when JavaScript runs.`}</p>
      </div>
      <details class="tool-json">
        <summary>Show JSON</summary>
        {json}
      </details>
    </figure>
  );
}
