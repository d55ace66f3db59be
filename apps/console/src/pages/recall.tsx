/** @jsxRuntime automatic @jsxImportSource preact */

import type { fileProblem, logFileEntriesOutput, RecallFile } from '@svc/tools-recall';
import type { ComponentChildren } from 'preact';
import type { z } from 'zod';
import type { Names } from '../identity-api';
import { UNAVAILABLE_TOOL_HINT } from '../tool-answers';
import type { ToolAnswer } from '../tool-calls';
import { CsrfField, formatTime, href, Layout, type PageContext } from './layout';
import { MorePager } from './more-pager';
import { DevicesTable } from './recall-devices';
import { type NameBook, nameBook, Who } from './who';

// Recall (docs/recall.md): the device log files of the project, read through the recall tools as
// any client reads them (log.list_files, log.file_entries, log.audit), and the two human-only
// actions, trigger and download, which go to recall's console side and are never tools. Everything
// in a file is attacker-controlled text: JSX prints it as text.

// The tools' own answer types (types only: nothing of the tool packages runs here).
/** log.file_entries's answer. */
export type FileEntries = z.infer<typeof logFileEntriesOutput>;
export type FileEntry = FileEntries['items'][number];
export type FileProblem = z.infer<typeof fileProblem>;

/** A record of log.audit's answer. */
export interface RecallAuditItem {
  at: string;
  action: 'trigger' | 'download' | 'view';
  via: string;
  user_id: string | null;
  token_id: string | null;
  file_id: string | null;
  device_id: string | null;
  target_user_id: string | null;
}

export interface ListAnswer<T> {
  items: T[];
  limit: number;
  has_more: boolean;
}

/** A page's filters as given (text fields of a GET form). */
export type Filters = Record<string, string | undefined>;

const filePath = (fileId: string) => `/recall/files/${encodeURIComponent(fileId)}`;

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

function RecallTabs({ ctx, current }: { ctx: PageContext; current: 'files' | 'audit' }) {
  return (
    <nav aria-label="Recall" class="tabs">
      <ul>
        <li>
          <a href={href('/recall', ctx.projectId)} aria-current={current === 'files' ? 'page' : undefined}>
            Files
          </a>
        </li>
        <li>
          <a
            href={href('/recall/audit', ctx.projectId)}
            aria-current={current === 'audit' ? 'page' : undefined}
          >
            Recall audit trail
          </a>
        </li>
      </ul>
    </nav>
  );
}

function Notices({ notice, error }: { notice?: string; error?: string }) {
  return (
    <>
      {notice ? (
        <p role="status" class="notice ok" id="recall-notice">
          {notice}
        </p>
      ) : null}
      {error ? (
        <p role="alert" class="notice error" id="recall-error">
          {error}
        </p>
      ) : null}
    </>
  );
}

/** A tool's error answer as the gateway gave it (the recall group not live, the capability off, ...). */
export function ToolError({ tool, answer }: { tool: string; answer: ToolAnswer & { ok: false } }) {
  return (
    <div role="alert" class="notice error" id="tool-error">
      <p>
        <code>{tool}</code> answered <strong>{answer.status}</strong> <code>{answer.error.error}</code>:{' '}
        {answer.error.message}
      </p>
      {answer.error.details === undefined ? null : (
        <pre>
          <code>{JSON.stringify(answer.error.details, null, 2)}</code>
        </pre>
      )}
      {answer.status === 403 || answer.status === 404 ? (
        <p>
          The recall tools need the capability <code>vis_recall</code>. {UNAVAILABLE_TOOL_HINT}
        </p>
      ) : null}
    </div>
  );
}

function TextFilter({
  id,
  name,
  label,
  value,
  type = 'text',
  help,
}: {
  id: string;
  name: string;
  label: string;
  value: string | undefined;
  type?: 'text' | 'date' | 'number';
  help?: string;
}) {
  const common = { id, name, value: value ?? '', 'aria-describedby': help ? `${id}-help` : undefined };
  return (
    <div>
      <label for={id}>{label}</label>
      {type === 'number' ? (
        <input {...common} type="number" min={1} step={1} />
      ) : type === 'date' ? (
        <input {...common} type="date" />
      ) : (
        <input {...common} type="text" maxLength={200} />
      )}
      {help ? <small id={`${id}-help`}>{help}</small> : null}
    </div>
  );
}

function FilterForm({
  ctx,
  action,
  label,
  children,
}: {
  ctx: PageContext;
  action: string;
  label: string;
  children: ComponentChildren;
}) {
  return (
    <form method="get" action={action} class="filters" aria-label={label}>
      <input type="hidden" name="project" value={ctx.projectId} />
      <div class="grid">{children}</div>
      <div class="filter-actions">
        <button type="submit" class="secondary">
          Apply filters
        </button>
        <a href={href(action, ctx.projectId)}>Clear</a>
      </div>
    </form>
  );
}

export function DownloadButton({
  ctx,
  file,
}: {
  ctx: PageContext;
  file: { file_id: string; file_name?: string };
}) {
  return (
    <form
      method="post"
      action={href(`${filePath(file.file_id)}/download`, ctx.projectId)}
      class="inline-form"
    >
      <CsrfField csrf={ctx.csrf} />
      <button type="submit" class="secondary outline">
        Download<span class="visually-hidden"> {file.file_name ?? file.file_id}</span>
      </button>
    </form>
  );
}

// Every column fits at desktop widths (the end user and the session under the device, the actions
// stacked); on a phone each row is a card of labelled lines (console.css, table.records).
function FilesTable({ ctx, files }: { ctx: PageContext; files: RecallFile[] }) {
  return (
    <div class="overflow-auto">
      <table id="recall-files" class="records">
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">Device</th>
            <th scope="col">Covers</th>
            <th scope="col">Size</th>
            <th scope="col">Uploaded</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {files.map((f) => (
            <tr key={f.file_id} data-file-id={f.file_id}>
              <th scope="row" data-label="File">
                {f.file_name}
                <br />
                <small class="muted">{f.file_id}</small>
              </th>
              <td data-label="Device">
                {f.device_id}
                <br />
                <small class="muted">{f.user_id ? `end user ${f.user_id}` : 'no end user'}</small>
                <br />
                <small class="muted">{f.session_id ? `session ${f.session_id}` : 'no session'}</small>
              </td>
              <td data-label="Covers" class="nowrap">
                {f.date}
              </td>
              <td data-label="Size" class="nowrap">
                {formatBytes(f.size_bytes)}
              </td>
              <td data-label="Uploaded">{formatTime(f.uploaded_at)}</td>
              <td class="actions">
                <a href={href(filePath(f.file_id), ctx.projectId)}>
                  View entries<span class="visually-hidden"> of {f.file_name}</span>
                </a>
                <DownloadButton ctx={ctx} file={f} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function TriggerForm({ ctx, values }: { ctx: PageContext; values?: Filters }) {
  return (
    <section aria-labelledby="trigger-heading">
      <h2 id="trigger-heading">Trigger a recall</h2>
      <form method="post" action={href('/recall/trigger', ctx.projectId)} id="trigger-recall">
        <CsrfField csrf={ctx.csrf} />
        <p class="muted" id="trigger-help">
          Ask a device, or every device of an end user, to upload its log files the next time the app checks
          in. Give a device id, a user id, or both. Recorded in the recall audit trail.
        </p>
        <div class="grid">
          <div>
            <label for="trigger-device">Device id</label>
            <input
              id="trigger-device"
              name="device_id"
              maxLength={200}
              value={values?.device_id ?? ''}
              aria-describedby="trigger-help"
            />
          </div>
          <div>
            <label for="trigger-user">End-user id</label>
            <input
              id="trigger-user"
              name="user_id"
              maxLength={200}
              value={values?.user_id ?? ''}
              aria-describedby="trigger-help"
            />
          </div>
        </div>
        <button type="submit">Trigger recall</button>
      </form>
    </section>
  );
}

export interface RecallPageProps {
  ctx: PageContext;
  filters: Filters;
  files: ToolAnswer;
  notice?: string;
  error?: string;
  trigger?: Filters;
}

export function RecallPage({ ctx, filters, files, notice, error, trigger }: RecallPageProps) {
  const list = files.ok ? (files.result as ListAnswer<RecallFile>) : undefined;
  return (
    <Layout ctx={ctx} section="recall" title="Recall">
      <RecallTabs ctx={ctx} current="files" />
      <Notices notice={notice} error={error} />
      {list && list.items.length > 0 ? <DevicesTable ctx={ctx} files={list.items} /> : null}
      <section aria-labelledby="files-heading">
        <h2 id="files-heading">Device log files</h2>
        <p class="muted">
          Newest upload first, from <code>log.list_files</code> through the gateway (audited like any tool
          call).
        </p>
        <FilterForm ctx={ctx} action="/recall" label="Filter files">
          <TextFilter id="filter-device" name="device_id" label="Device id" value={filters.device_id} />
          <TextFilter id="filter-user" name="user_id" label="End-user id" value={filters.user_id} />
          <TextFilter id="filter-date" name="date" label="Covers day" type="date" value={filters.date} />
          <TextFilter
            id="filter-q"
            name="q"
            label="File name"
            value={filters.q}
            help="Fuzzy: its characters in this order (crsh1119 finds crash-2026-11-19.log)."
          />
          <TextFilter id="filter-limit" name="limit" label="At most" type="number" value={filters.limit} />
        </FilterForm>
        {!files.ok ? (
          <ToolError tool="log.list_files" answer={files} />
        ) : list!.items.length === 0 ? (
          <p>No file matches.</p>
        ) : (
          <FilesTable ctx={ctx} files={list!.items} />
        )}
        <MorePager ctx={ctx} path="/recall" filters={filters} list={list} noun="files" />
      </section>
      <TriggerForm ctx={ctx} values={trigger} />
    </Layout>
  );
}

export function RecallNotDeployedPage({ ctx }: { ctx: PageContext }) {
  return (
    <Layout ctx={ctx} section="recall" title="Recall">
      <p role="status" class="notice" id="recall-not-deployed">
        Recall is not deployed in this installation: there are no device log files to list, and no recall can
        be triggered. It is enabled by running the recall service and setting <code>SVC_RECALL_ENDPOINT</code>{' '}
        for the console and the gateway (see docs/recall.md).
      </p>
    </Layout>
  );
}

function FileFacts({ file, entries }: { file: RecallFile; entries: FileEntries }) {
  return (
    <dl class="file-facts">
      <dt>File</dt>
      <dd>
        {file.file_name} <small class="muted">({file.file_id})</small>
      </dd>
      <dt>Device</dt>
      <dd>{file.device_id}</dd>
      <dt>End user</dt>
      <dd>{file.user_id ?? '—'}</dd>
      <dt>Session</dt>
      <dd>{file.session_id ?? '—'}</dd>
      <dt>Covers</dt>
      <dd>{file.date}</dd>
      <dt>Size</dt>
      <dd>{formatBytes(file.size_bytes)}</dd>
      <dt>Uploaded</dt>
      <dd>{formatTime(file.uploaded_at)}</dd>
      <dt>Status</dt>
      <dd>{statusText(entries)}</dd>
    </dl>
  );
}

/**
 * What is known of the file from this page's read: one call reads a page (or a bounded slice) of
 * the file, so "readable" is said of the lines read so far, and a count only of a file read whole.
 */
function statusText(entries: FileEntries): string {
  if (entries.status !== 'ok') return 'unreadable';
  const whole = !entries.has_more && entries.scanned_through_line === entries.lines_read;
  return whole
    ? `readable, ${entries.lines_read} entries`
    : `readable through line ${entries.scanned_through_line}${entries.has_more ? ' (the file goes on)' : ''}`;
}

function Problem({ problem, linesRead }: { problem: FileProblem; linesRead: number }) {
  const where = problem.line === null ? '' : ` at line ${problem.line}`;
  return (
    <div role="alert" class="notice error" id="file-problem">
      <p>
        <strong>This file cannot be read to its end</strong> ({problem.stage}
        {where}): {problem.message}
      </p>
      <p>
        {linesRead === 0
          ? 'No entry could be read.'
          : `The ${linesRead} entries before that point are listed below.`}
      </p>
    </div>
  );
}

function EntriesTable({ items }: { items: FileEntry[] }) {
  return (
    <div class="overflow-auto">
      <table id="file-entries" class="records">
        <thead>
          <tr>
            <th scope="col">Line</th>
            <th scope="col">Time (as the device wrote it)</th>
            <th scope="col">Level</th>
            <th scope="col">Tag</th>
            <th scope="col">Message</th>
            <th scope="col">Other fields</th>
          </tr>
        </thead>
        <tbody>
          {items.map((e) => (
            <tr key={e.line} data-line={e.line}>
              <th scope="row" data-label="Line">
                {e.line}
              </th>
              <td data-label="Time">{e.ts}</td>
              <td data-label="Level">{e.level}</td>
              <td data-label="Tag">{e.tag ?? <span class="muted">—</span>}</td>
              <td class="message" data-label="Message">
                {e.message}
              </td>
              <td data-label="Other fields">
                {Object.keys(e.fields).length === 0 ? (
                  <span class="muted">—</span>
                ) : (
                  <details>
                    <summary>
                      {Object.keys(e.fields).length} fields
                      <span class="visually-hidden"> of line {e.line}</span>
                    </summary>
                    <pre>
                      <code>{JSON.stringify(e.fields, null, 2)}</code>
                    </pre>
                  </details>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export interface RecallFilePageProps {
  ctx: PageContext;
  fileId: string;
  filters: Filters;
  entries: ToolAnswer;
}

export function RecallFilePage({ ctx, fileId, filters, entries }: RecallFilePageProps) {
  const answer = entries.ok ? (entries.result as FileEntries) : undefined;
  const last = answer?.items.at(-1);
  const path = filePath(fileId);
  return (
    <Layout ctx={ctx} section="recall" title="Device log file">
      <p>
        <a href={href('/recall', ctx.projectId)}>All files</a>
      </p>
      <p class="muted" id="view-recorded">
        Opening this page reads the file through <code>log.file_entries</code>, which records a <em>view</em>{' '}
        by you in the <a href={href('/recall/audit', ctx.projectId)}>recall audit trail</a>.
      </p>
      {!entries.ok ? <ToolError tool="log.file_entries" answer={entries} /> : null}
      {answer && !answer.found ? (
        <p role="alert" class="notice error">
          This project has no file <code>{fileId}</code>.
        </p>
      ) : null}
      {answer?.found && answer.file ? (
        <>
          <FileFacts file={answer.file} entries={answer} />
          <DownloadButton ctx={ctx} file={answer.file} />
          {answer.problem ? <Problem problem={answer.problem} linesRead={answer.lines_read} /> : null}
          <section aria-labelledby="entries-heading">
            <h2 id="entries-heading">Entries</h2>
            <FilterForm ctx={ctx} action={path} label="Filter entries">
              <TextFilter
                id="entries-level"
                name="level"
                label="Level"
                value={filters.level}
                help="Exact, case-insensitive (error)."
              />
              <TextFilter
                id="entries-q"
                name="q"
                label="Text"
                value={filters.q}
                help="In the message or tag, case-insensitive."
              />
              <TextFilter
                id="entries-limit"
                name="limit"
                label="At most"
                type="number"
                value={filters.limit}
              />
            </FilterForm>
            {answer.items.length === 0 ? (
              <p>
                {answer.has_more
                  ? `No entry matches up to line ${answer.scanned_through_line}; the file goes on.`
                  : filters.after_line
                    ? 'No more entries match.'
                    : 'No entry matches.'}
              </p>
            ) : (
              <EntriesTable items={answer.items} />
            )}
            <nav aria-label="Entry pages" class="pager">
              <ul>
                {filters.after_line ? (
                  <li>
                    <a href={href(path, ctx.projectId, { ...filters, after_line: undefined })}>
                      From the first entry
                    </a>
                  </li>
                ) : null}
                {answer.has_more ? (
                  <li>
                    {/* One call reads a bounded slice: the next one starts where it stopped, which
                        is past the last match when the filter matched little or nothing. */}
                    <a
                      href={href(path, ctx.projectId, {
                        ...filters,
                        after_line: String(answer.scanned_through_line),
                      })}
                      rel="next"
                    >
                      {last ? 'Next entries' : 'Keep looking'} (after line {answer.scanned_through_line})
                    </a>
                  </li>
                ) : null}
              </ul>
            </nav>
          </section>
        </>
      ) : null}
    </Layout>
  );
}

const ACTIONS = ['trigger', 'download', 'view'] as const;

// Who, in words (identity's names for the session's org); how (via) under the action; the end user
// under the device. Fits at desktop widths; a card per record on a phone.
function AuditTrailTable({
  ctx,
  items,
  names,
}: {
  ctx: PageContext;
  items: RecallAuditItem[];
  names: NameBook;
}) {
  return (
    <div class="overflow-auto">
      <table id="recall-audit" class="records">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Action</th>
            <th scope="col">Who</th>
            <th scope="col">File</th>
            <th scope="col">Device / end user</th>
          </tr>
        </thead>
        <tbody>
          {items.map((r, i) => (
            <tr key={`${r.at}-${i}`}>
              <td data-label="When">{formatTime(r.at)}</td>
              <td data-label="Action">
                {r.action}
                <br />
                <small class="muted">via {r.via}</small>
              </td>
              <td data-label="Who">
                <Who
                  userId={r.user_id}
                  email={r.user_id ? names.email(r.user_id) : undefined}
                  tokenId={r.token_id}
                  tokenName={r.token_id ? names.tokenName(r.token_id) : undefined}
                  noToken={null}
                />
              </td>
              <td data-label="File">
                {r.file_id ? (
                  <a href={href(filePath(r.file_id), ctx.projectId)}>{r.file_id}</a>
                ) : (
                  <span class="muted">—</span>
                )}
              </td>
              <td data-label="Device / end user">
                {r.device_id ?? <span class="muted">no device</span>}
                {r.target_user_id ? (
                  <>
                    <br />
                    <small class="muted">end user {r.target_user_id}</small>
                  </>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function RecallAuditPage({
  ctx,
  filters,
  trail,
  names,
}: {
  ctx: PageContext;
  filters: Filters;
  trail: ToolAnswer;
  /** Identity's names for the trail's ids; without them, ids are shown. */
  names?: Names;
}) {
  const list = trail.ok ? (trail.result as ListAnswer<RecallAuditItem>) : undefined;
  return (
    <Layout ctx={ctx} section="recall" title="Recall audit trail">
      <RecallTabs ctx={ctx} current="audit" />
      <p>
        Who triggered recalls, downloaded files and viewed entries, newest first (<code>log.audit</code>).
        Nobody can change this trail: the database refuses updates and deletes of it.
      </p>
      <FilterForm ctx={ctx} action="/recall/audit" label="Filter the recall audit trail">
        <div>
          <label for="audit-action">Action</label>
          <select id="audit-action" name="action">
            <option value="">(any)</option>
            {ACTIONS.map((a) => (
              <option key={a} value={a} selected={filters.action === a}>
                {a}
              </option>
            ))}
          </select>
        </div>
        <TextFilter id="audit-file" name="file_id" label="File id" value={filters.file_id} />
        <TextFilter id="audit-limit" name="limit" label="At most" type="number" value={filters.limit} />
      </FilterForm>
      {!trail.ok ? (
        <ToolError tool="log.audit" answer={trail} />
      ) : list!.items.length === 0 ? (
        <p>Nothing recorded{filters.action || filters.file_id ? ' that matches' : ' yet'}.</p>
      ) : (
        <AuditTrailTable ctx={ctx} items={list!.items} names={nameBook(names)} />
      )}
      <MorePager ctx={ctx} path="/recall/audit" filters={filters} list={list} noun="records" />
    </Layout>
  );
}

/** A download refused because the file cannot be read to its end: what could be read is viewable. */
export function DownloadFailedPage({
  ctx,
  fileId,
  message,
  problem,
}: {
  ctx: PageContext;
  fileId: string;
  message: string;
  problem: FileProblem | undefined;
}) {
  return (
    <Layout ctx={ctx} section="recall" title="Download failed">
      <div role="alert" class="notice error" id="download-failed">
        <p>{message}</p>
        {problem ? (
          <p>
            {problem.stage}
            {problem.line === null ? '' : ` at line ${problem.line}`}: {problem.message}
          </p>
        ) : null}
      </div>
      <p>
        <a href={href(filePath(fileId), ctx.projectId)}>View the entries that can be read</a> ·{' '}
        <a href={href('/recall', ctx.projectId)}>All files</a>
      </p>
    </Layout>
  );
}
