/** @jsxRuntime automatic @jsxImportSource preact */
import type { CatalogTool } from '../gateway-catalog';
import type { FieldError, FormField, FormValues } from '../schema-form';
import { UNAVAILABLE_TOOL_HINT } from '../tool-answers';
import { curlCommand, mcpToolsCall } from '../tool-call-examples';
import type { ToolAnswer } from '../tool-calls';
import { toolViewOf } from '../views/tool-views';
import { CodeSpans } from './code-spans';
import { Copyable } from './copyable';
import { CsrfField, href, Layout, type PageContext } from './layout';
import { fieldId, SchemaFields } from './schema-fields';
import { ToolAnswerView } from './tool-answer';

// The tool runner: every tool the gateway publishes, a form for each generated from its input
// schema, and the answer as the gateway gave it (result or error), with the same call as curl and
// as an MCP request. Results are data from the application: printed as text, never as markup.

const toolPath = (name: string) => `/tools/${encodeURIComponent(name)}`;
const pretty = (value: unknown) => JSON.stringify(value, null, 2);

export function ToolsIndexPage({ ctx, groups }: { ctx: PageContext; groups: [string, CatalogTool[]][] }) {
  return (
    <Layout ctx={ctx} section="tools" title="Tool runner">
      <ViaGateway ctx={ctx} />
      {groups.length === 0 ? <p>The gateway publishes no tool right now.</p> : null}
      {groups.map(([group, tools]) => (
        <section key={group} aria-labelledby={`group-${group}`}>
          <h2 id={`group-${group}`}>{group}</h2>
          <div class="overflow-auto">
            <table class="tool-list records">
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  <th scope="col">What it answers</th>
                  <th scope="col">Capability</th>
                </tr>
              </thead>
              <tbody>
                {tools.map((t) => (
                  <tr key={t.name} data-tool={t.name}>
                    <th scope="row">
                      <a href={href(toolPath(t.name), ctx.projectId)}>
                        <code>{t.name}</code>
                      </a>
                    </th>
                    <td>
                      <CodeSpans text={t.summary} />
                    </td>
                    <td data-label="Capability">
                      <code>{t.capability ?? '—'}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ))}
    </Layout>
  );
}

/** Why a run shows up on the Audit page: the console is a client of the gateway like any other. */
function ViaGateway({ ctx }: { ctx: PageContext }) {
  return (
    <p class="muted" id="via-gateway">
      Calls run through the gateway at <code>{ctx.gatewayUrl}</code> with the console's own token for your
      session and this project: they are authenticated, capability-checked, rate limited and audited like any
      client's, and appear on the <a href={href('/audit', ctx.projectId)}>Audit page</a>.
    </p>
  );
}

/** A finished run: what was sent, what came back. */
export interface ToolRun {
  input: Record<string, unknown>;
  answer: ToolAnswer;
  elapsedMs: number;
}

function RunResult({ ctx, tool, run }: { ctx: PageContext; tool: string; run: ToolRun }) {
  const { answer } = run;
  return (
    <section id="result" aria-labelledby="result-heading">
      <h2 id="result-heading">Result</h2>
      {answer.ok ? (
        <>
          <p role="status" class="notice ok">
            {`${answer.status} OK in ${run.elapsedMs} ms`}
          </p>
          <ToolAnswerView
            id="tool-answer"
            jsonId="tool-result"
            tool={tool}
            input={run.input}
            result={answer.result}
            projectId={ctx.projectId}
          />
        </>
      ) : (
        <div role="alert" class="notice error" id="tool-error">
          <p>
            <strong>{answer.status}</strong> <code>{answer.error.error}</code>: {answer.error.message}
          </p>
          {answer.error.details === undefined ? null : (
            <pre>
              <code>{pretty(answer.error.details)}</code>
            </pre>
          )}
          {answer.status === 403 || answer.status === 404 ? <p>{UNAVAILABLE_TOOL_HINT}</p> : null}
        </div>
      )}
      <h2>The same call elsewhere</h2>
      <p class="muted">
        With a token of your own in <code>SVC_TOKEN</code> (create one on the{' '}
        <a href={href('/mcp', ctx.projectId)}>MCP tokens page</a>).
      </p>
      <Copyable id="call-curl" label="REST (curl)" text={curlCommand(ctx.gatewayUrl, tool, run.input)} />
      <Copyable id="call-mcp" label="MCP (tools/call request)" text={mcpToolsCall(tool, run.input)} />
    </section>
  );
}

export interface ToolPageProps {
  ctx: PageContext;
  tool: CatalogTool;
  fields: FormField[];
  /** The form's values (a submitted form, or the input just run); undefined for a fresh form. */
  values?: FormValues;
  errors?: FieldError[];
  /** The raw JSON editor's text. */
  json: string;
  /** Why the raw JSON could not be run. */
  jsonError?: string;
  run?: ToolRun;
  /** The gateway's catalog does not have this tool now: the page still lets a run show its answer. */
  unpublished?: boolean;
}

export function ToolPage({
  ctx,
  tool,
  fields,
  values,
  errors = [],
  json,
  jsonError,
  run,
  unpublished,
}: ToolPageProps) {
  // The fragment brings the answer into view after the POST, without a script.
  const action = `${href(toolPath(tool.name), ctx.projectId)}#result`;
  return (
    <Layout
      ctx={ctx}
      section="tools"
      title={tool.name}
      views={run?.answer.ok === true && toolViewOf(tool.name) !== undefined}
    >
      <p>
        <a href={href('/tools', ctx.projectId)}>All tools</a>
      </p>
      {unpublished ? (
        <p role="alert" class="notice warning" id="tool-unpublished">
          The gateway does not publish <code>{tool.name}</code> right now: no such tool, or its backend is not
          deployed or not answering. A run below shows the gateway's answer.
        </p>
      ) : null}
      <p>
        <strong>
          <CodeSpans text={tool.summary} />
        </strong>
        {tool.capability ? (
          <>
            {' '}
            · capability <code>{tool.capability}</code>
          </>
        ) : null}
      </p>
      <p id="tool-description">
        <CodeSpans text={tool.description} />
      </p>
      <ViaGateway ctx={ctx} />
      {errors.length > 0 ? (
        <div role="alert" class="notice error" id="form-errors">
          <p>Nothing was run: fix these fields first.</p>
          <ul>
            {errors.map((e) => (
              <li key={e.name}>
                <a href={`#${fieldId(e.name)}`}>
                  <code>{e.path}</code>
                </a>{' '}
                {e.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <form method="post" action={action} id="tool-form" aria-labelledby="form-heading">
        <h2 id="form-heading">Parameters</h2>
        <CsrfField csrf={ctx.csrf} />
        <input type="hidden" name="mode" value="form" />
        {fields.length === 0 ? <p>This tool takes no parameters.</p> : null}
        <SchemaFields fields={fields} values={values} errors={errors} />
        <p class="muted">Empty fields are left out: the tool takes its defaults.</p>
        <button type="submit">Run {tool.name}</button>
      </form>
      <details open={jsonError !== undefined} class="raw-json">
        <summary>Or edit the input as JSON</summary>
        <form method="post" action={action} id="tool-json-form">
          <CsrfField csrf={ctx.csrf} />
          <input type="hidden" name="mode" value="json" />
          <label for="input-json">Input (a JSON object, sent as it is)</label>
          <textarea
            id="input-json"
            name="input_json"
            rows={8}
            class="code"
            spellcheck={false}
            aria-invalid={jsonError ? 'true' : undefined}
            aria-describedby={jsonError ? 'input-json-error' : undefined}
          >
            {json}
          </textarea>
          {jsonError ? (
            <small id="input-json-error" class="field-error" role="alert">
              {jsonError}
            </small>
          ) : null}
          <button type="submit" class="secondary">
            Run with this JSON
          </button>
        </form>
      </details>
      {run ? <RunResult ctx={ctx} tool={tool.name} run={run} /> : null}
    </Layout>
  );
}
