/** @jsxRuntime automatic @jsxImportSource preact */
import type { AuditRecord, AuditPage as AuditRecords, AuditVerification } from '../identity-api';
import { formatTime, href, Layout, type PageContext } from './layout';
import { Who } from './who';

// The project's tool-call audit trail: every call over MCP, REST, stdio and the console's own (the
// tool runner, the traces and recall pages), newest first, and whether its hash chain still holds.
// Params are shown as the caller sent them, as text (JSX escapes them; a `<script>` in a parameter
// is just characters).

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

/** A record's details on demand: the ids behind the names, and the params as the caller sent them. */
function Details({ record }: { record: AuditRecord }) {
  const hasParams = record.params !== undefined && record.params !== null;
  return (
    <details class="record-details">
      <summary>
        {hasParams ? 'Params, ids' : 'Ids'}
        <span class="visually-hidden"> of record {record.seq}</span>
      </summary>
      <dl class="facts">
        <dt>User id</dt>
        <dd>{record.user_id ? <code>{record.user_id}</code> : '—'}</dd>
        <dt>Token id</dt>
        <dd>{record.token_id ? <code>{record.token_id}</code> : '—'}</dd>
        <dt>Request id</dt>
        <dd>
          <code>{record.request_id}</code>
        </dd>
      </dl>
      {hasParams ? (
        <pre>
          <code>{JSON.stringify(record.params, null, 2)}</code>
        </pre>
      ) : null}
    </details>
  );
}

// Every column fits at desktop widths (names instead of ids, the rest on demand); on a phone each
// row is a card of labelled lines (console.css, table.records; the labels are data-label).
function AuditTable({ items }: { items: AuditRecord[] }) {
  return (
    <div class="overflow-auto">
      <table id="audit-records" class="records">
        <caption class="visually-hidden">Tool calls, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Seq</th>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Tool</th>
            <th scope="col">Via</th>
            <th scope="col">Status</th>
            <th scope="col">Duration</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {items.map((r) => (
            <tr key={r.seq} data-seq={r.seq}>
              <th scope="row" data-label="Seq">
                {r.seq}
              </th>
              <td data-label="When">{formatTime(r.at)}</td>
              <td data-label="Who">
                <Who userId={r.user_id} email={r.user_email} tokenId={r.token_id} tokenName={r.token_name} />
              </td>
              <td data-label="Tool">
                <code>{r.tool}</code>
              </td>
              <td data-label="Via">{r.transport}</td>
              <td data-label="Status" class={r.status === 'ok' ? undefined : 'status-bad'}>
                {r.status}
              </td>
              <td data-label="Duration">{`${r.duration_ms} ms`}</td>
              <td data-label="Details" class="details-cell">
                <Details record={r} />
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
        Every tool call of this project over MCP, REST and stdio, newest first, including the ones this
        console makes for you (via <code>console</code>: the{' '}
        <a href={href('/tools', ctx.projectId)}>tool runner</a>, the traces and recall pages). Records are
        hash-chained; the chain is verified against identity's signed checkpoints each time this page opens.
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
