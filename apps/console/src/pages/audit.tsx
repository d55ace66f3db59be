/** @jsxRuntime automatic @jsxImportSource preact */
import type { AuditRecord, AuditPage as AuditRecords, AuditVerification } from '../identity-api';
import { formatTime, href, Layout, type PageContext } from './layout';

// The project's tool-call audit trail: every call over MCP, REST and stdio (the console's own tool
// runner included), newest first, and whether its hash chain still holds. Params are shown as the
// caller sent them, as text (JSX escapes them; a `<script>` in a parameter is just characters).

/** What the verification said, or that it could not be done now (identity or its log unavailable). */
export type VerificationView = { checked: AuditVerification } | { unavailable: string };

function Warnings({ warnings }: { warnings: string[] | undefined }) {
  if (!warnings?.length) return null;
  return (
    <ul class="muted">
      {warnings.map((w) => (
        <li key={w}>{w}</li>
      ))}
    </ul>
  );
}

function Verification({ view }: { view: VerificationView }) {
  if ('unavailable' in view) {
    return (
      <div role="alert" class="notice warning" id="audit-verification">
        <p>
          <strong>Not verified.</strong> {view.unavailable}
        </p>
      </div>
    );
  }
  const v = view.checked;
  const records = `${v.checked} record${v.checked === 1 ? '' : 's'}`;
  if (v.ok) {
    return (
      <div role="status" class="notice ok" id="audit-verification" data-verified="ok">
        <p>
          <strong>Hash chain intact:</strong> {records} checked,{' '}
          {v.checkpoint
            ? `held against the checkpoint signed at seq ${v.checkpoint.seq}${v.checkpoint.at ? ` (${formatTime(v.checkpoint.at)})` : ''}.`
            : 'with no signed checkpoint yet to hold them against.'}
        </p>
        <Warnings warnings={v.warnings} />
      </div>
    );
  }
  const problems = v.problems?.length
    ? v.problems
    : [
        {
          code: v.code ?? 'broken',
          reason: v.reason ?? 'the chain is broken',
          broken_at_seq: v.broken_at_seq,
        },
      ];
  return (
    <div role="alert" class="notice error" id="audit-verification" data-verified="broken">
      <p>
        <strong>Hash chain BROKEN</strong>
        {v.broken_at_seq === undefined ? '' : ` at seq ${v.broken_at_seq}`}: {records} intact before the break
        {v.checkpoint ? `, newest checkpoint at seq ${v.checkpoint.seq}` : ''}. Records from there on cannot
        be trusted.
      </p>
      <ul>
        {problems.map((p) => (
          <li key={`${p.code}-${p.broken_at_seq}`}>
            <code>{p.code}</code>
            {p.broken_at_seq === undefined ? '' : ` (seq ${p.broken_at_seq})`}: {p.reason}
          </li>
        ))}
      </ul>
      <Warnings warnings={v.warnings} />
    </div>
  );
}

function Params({ record }: { record: AuditRecord }) {
  if (record.params === undefined || record.params === null) return <span class="muted">—</span>;
  return (
    <details>
      <summary>
        params<span class="visually-hidden"> of record {record.seq}</span>
      </summary>
      <pre>
        <code>{JSON.stringify(record.params, null, 2)}</code>
      </pre>
    </details>
  );
}

function AuditTable({ items }: { items: AuditRecord[] }) {
  return (
    <div class="overflow-auto">
      <table id="audit-records">
        <caption class="visually-hidden">Tool calls, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Seq</th>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Tool</th>
            <th scope="col">Transport</th>
            <th scope="col">Status</th>
            <th scope="col">Duration</th>
            <th scope="col">Params</th>
          </tr>
        </thead>
        <tbody>
          {items.map((r) => (
            <tr key={r.seq} data-seq={r.seq}>
              <th scope="row">{r.seq}</th>
              <td>{formatTime(r.at)}</td>
              <td>
                {r.user_id ?? <span class="muted">no user</span>}
                <br />
                <small class="muted">{r.token_id ?? 'no token'}</small>
              </td>
              <td>
                <code>{r.tool}</code>
              </td>
              <td>{r.transport}</td>
              <td class={r.status === 'ok' ? undefined : 'status-bad'}>{r.status}</td>
              <td>{`${r.duration_ms} ms`}</td>
              <td>
                <Params record={r} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export interface AuditPageProps {
  ctx: PageContext;
  records: AuditRecords;
  verification: VerificationView;
  /** The page asked for (records before this seq); undefined for the newest. */
  beforeSeq?: number;
}

export function AuditPage({ ctx, records, verification, beforeSeq }: AuditPageProps) {
  const last = records.items.at(-1);
  return (
    <Layout ctx={ctx} section="audit" title="Audit">
      <Verification view={verification} />
      <p>
        Every tool call of this project over MCP, REST and stdio, newest first, including the calls the{' '}
        <a href={href('/tools', ctx.projectId)}>tool runner</a> makes for you. Records are hash-chained; the
        chain is verified against identity's signed checkpoints each time this page opens.
      </p>
      {records.items.length === 0 ? (
        <p>{beforeSeq === undefined ? 'No tool call recorded for this project yet.' : 'No older records.'}</p>
      ) : (
        <AuditTable items={records.items} />
      )}
      <nav aria-label="Audit pages" class="pager">
        <ul>
          {beforeSeq !== undefined ? (
            <li>
              <a href={href('/audit', ctx.projectId)}>Newest records</a>
            </li>
          ) : null}
          {records.has_more && last ? (
            <li>
              <a href={href('/audit', ctx.projectId, { before_seq: String(last.seq) })} rel="next">
                Older records (before seq {last.seq})
              </a>
            </li>
          ) : null}
        </ul>
      </nav>
    </Layout>
  );
}
