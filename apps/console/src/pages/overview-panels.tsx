/** @jsxRuntime automatic @jsxImportSource preact */
import type { CatalogTool } from '../gateway-catalog';
import {
  type CrashStats,
  LISTED,
  NEW_ISSUE_DAYS,
  newIssues,
  type Operation,
  OVERVIEW_DAYS,
  type PanelAnswer,
  type PanelId,
  type PanelRun,
  slowestOperations,
} from '../overview/panels';
import { UNAVAILABLE_TOOL_HINT } from '../tool-answers';
import { href, type PageContext } from './layout';
import { ToolAnswerView } from './tool-answer';

// One overview panel's content once its tools answered: a few facts in words (each number a
// <data> element holding the tool's own value), the answer drawn by the tool's view, and links to
// the same call in the runner and to the assistant with the panel's question.

export const PANEL_TITLES: Record<PanelId, string> = {
  releases: 'Release health of the recent versions',
  crashes: 'Crash issues, top and new',
  operations: 'Slowest operations',
};

const number = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
const pct = (r: number | null) => (r === null ? '–' : `${(r * 100).toFixed(1)}%`);

/** A number as the tool gave it (value) and as people read it (text). */
function Num({ field, value, text }: { field: string; value: number | string | null; text?: string }) {
  return (
    <data data-field={field} value={String(value)}>
      {text ?? (typeof value === 'number' ? number.format(value) : (value ?? '–'))}
    </data>
  );
}

const runnerHref = (ctx: PageContext, call: { tool: string; input: Record<string, unknown> }) =>
  href(`/tools/${encodeURIComponent(call.tool)}`, ctx.projectId, { input: JSON.stringify(call.input) });

export const assistantHref = (ctx: PageContext, question: string) =>
  href('/assistant', ctx.projectId, { q: question });

function Refused({ call, tool }: { call: PanelAnswer; tool: CatalogTool | undefined }) {
  if (call.answer.ok) return null;
  const { status, error } = call.answer;
  if (status === 403 || status === 404)
    return (
      <p role="status" class="notice warning" data-panel-state="unavailable">
        You cannot call <code>{call.tool}</code> in this project
        {tool?.capability ? (
          <>
            {' '}
            (capability <code>{tool.capability}</code>)
          </>
        ) : null}
        . {UNAVAILABLE_TOOL_HINT}
      </p>
    );
  return (
    <p role="alert" class="notice error" data-panel-state="failed">
      <code>{call.tool}</code> failed: <strong>{status}</strong> <code>{error.error}</code>: {error.message}
    </p>
  );
}

interface Release {
  version: string;
  found: boolean;
  sessions: number;
  crash_free_session_rate: number | null;
  score: number | null;
  grade: string | null;
}

function ReleaseFacts({ result }: { result: unknown }) {
  const releases = (result as { releases: Release[] }).releases;
  return (
    <ul class="overview-facts">
      {releases.map((r) => (
        <li key={r.version} data-version={r.version}>
          <strong>{r.version}</strong>:{' '}
          {r.found ? (
            <>
              grade <Num field="grade" value={r.grade} /> (score <Num field="score" value={r.score} />
              ),{' '}
              <Num
                field="crash_free_session_rate"
                value={r.crash_free_session_rate}
                text={pct(r.crash_free_session_rate)}
              />{' '}
              crash-free sessions of <Num field="sessions" value={r.sessions} />
            </>
          ) : (
            'no sessions or samples in the window'
          )}
        </li>
      ))}
    </ul>
  );
}

function CrashFacts({ result }: { result: unknown }) {
  const stats = result as CrashStats;
  const fresh = newIssues(stats);
  return (
    <>
      <p>
        <Num field="total" value={stats.total} /> crashes of{' '}
        <Num field="affected_users" value={stats.affected_users} /> users in{' '}
        <Num field="signature_count" value={stats.signature_count} /> issues over {OVERVIEW_DAYS} days.
      </p>
      <h3>Top issues</h3>
      <ol class="overview-facts" data-list="top-issues">
        {stats.signatures.slice(0, LISTED).map((s) => (
          <li key={s.signature} data-signature={s.signature}>
            <code>{s.signature}</code> <span class="muted">{s.error_type}</span>:{' '}
            <Num field="count" value={s.count} /> (<Num field="share" value={s.share} text={pct(s.share)} />)
          </li>
        ))}
      </ol>
      <h3>New in the last {NEW_ISSUE_DAYS} days</h3>
      {fresh.length === 0 ? (
        <p data-list="new-issues">No issue was first seen in the last {NEW_ISSUE_DAYS} days.</p>
      ) : (
        <ol class="overview-facts" data-list="new-issues">
          {fresh.map((s) => (
            <li key={s.signature} data-signature={s.signature}>
              <code>{s.signature}</code> <span class="muted">{s.error_type}</span>: first in{' '}
              <Num field="first_app_version" value={s.first_app_version} />,{' '}
              <Num field="count" value={s.count} /> {s.count === 1 ? 'crash' : 'crashes'}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}

function OperationFacts({ result }: { result: unknown }) {
  const slowest = slowestOperations(result as { operations: Operation[] });
  if (slowest.length === 0) return <p>No spans in the last {OVERVIEW_DAYS} days.</p>;
  return (
    <ol class="overview-facts" data-list="slowest">
      {slowest.map((o) => (
        <li key={o.operation} data-operation={o.operation}>
          <code>{o.operation}</code>: p99 <Num field="p99_ms" value={o.p99_ms} /> ms, p50{' '}
          <Num field="p50_ms" value={o.p50_ms} /> ms, errors{' '}
          <Num field="error_rate" value={o.error_rate} text={pct(o.error_rate)} />
        </li>
      ))}
    </ol>
  );
}

const FACTS: Record<PanelId, (props: { result: unknown }) => preact.JSX.Element> = {
  releases: ReleaseFacts,
  crashes: CrashFacts,
  operations: OperationFacts,
};

/** The question each panel hands to the assistant. */
function questionOf(run: PanelRun): string {
  if (run.id === 'crashes')
    return `Which crash issues are new in the last ${NEW_ISSUE_DAYS} days, and which release brought them?`;
  if (run.id === 'operations')
    return `Which operations are slowest over the last ${OVERVIEW_DAYS} days, and why?`;
  const versions = run.calls.at(-1)?.input.versions;
  return typeof versions === 'string'
    ? `How healthy are the releases ${versions.split(',').join(', ')}, and what lowers their scores?`
    : 'How healthy are the recent releases?';
}

export function PanelBody({
  ctx,
  run,
  catalog,
}: {
  ctx: PageContext;
  run: PanelRun;
  catalog: Map<string, CatalogTool>;
}) {
  const main = run.calls.at(-1)!;
  const failed = run.calls.find((c) => !c.answer.ok);
  const Facts = FACTS[run.id];
  return (
    <div data-panel-state={failed ? undefined : 'ready'}>
      {failed ? <Refused call={failed} tool={catalog.get(failed.tool)} /> : null}
      {!failed && run.id === 'releases' && main.tool !== 'release.health' ? (
        <p>No app version was reported in the last {OVERVIEW_DAYS} days.</p>
      ) : null}
      {!failed && main.answer.ok && (run.id !== 'releases' || main.tool === 'release.health') ? (
        <>
          <Facts result={main.answer.result} />
          <ToolAnswerView
            id={`answer-${run.id}`}
            tool={main.tool}
            input={main.input}
            result={main.answer.result}
            projectId={ctx.projectId}
          />
        </>
      ) : null}
      <p class="panel-links">
        <a href={runnerHref(ctx, main)}>
          Run <code>{main.tool}</code> in the runner
        </a>{' '}
        · <a href={assistantHref(ctx, questionOf(run))}>Ask the assistant</a>
      </p>
    </div>
  );
}
