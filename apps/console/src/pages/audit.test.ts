import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { AuditRecord } from '../identity-api';
import { TEST_PAGE_CONTEXT } from '../testing/page-context';
import { AuditPage, type AuditPageProps } from './audit';

// The audit page rendered as the server sends it, on constructed records and verifications.

const ctx = TEST_PAGE_CONTEXT;

function record(seq: number, extra: Partial<AuditRecord> = {}): AuditRecord {
  return {
    seq,
    at: new Date(Date.UTC(2030, 0, 1, 0, 0, seq)).toISOString(),
    token_id: `tok_${seq}`,
    user_id: `usr_${seq}`,
    tool: 'log.search',
    transport: 'rest',
    status: 'ok',
    duration_ms: seq * 10,
    request_id: `req-${seq}`,
    params: { search: `term ${seq}` },
    hash: 'a'.repeat(64),
    ...extra,
  };
}

const render = (props: Partial<AuditPageProps>) =>
  renderToString(
    h(AuditPage, {
      ctx,
      records: { items: [], limit: 50, has_more: false },
      verification: { checked: { ok: true, checked: 0, checkpoint: null } },
      ...props,
    }),
  );

const rowsOf = (html: string) => [...html.matchAll(/<tr data-seq="(\d+)"/g)].map((m) => Number(m[1]));

describe('AuditPage', () => {
  it('lists the records in the order given (newest first) with who, tool, transport, status, time, duration', () => {
    const items = [
      record(3, { status: 'invalid_input', transport: 'mcp' }),
      record(2, { transport: 'console' }),
      record(1, { user_id: null }),
    ];
    const html = render({ records: { items, limit: 50, has_more: false } });
    expect(rowsOf(html)).toEqual([3, 2, 1]);
    const third = html.slice(html.indexOf('data-seq="3"'), html.indexOf('data-seq="2"'));
    for (const text of [
      'usr_3',
      'tok_3',
      'log.search',
      'mcp',
      'invalid_input',
      '30 ms',
      '2030-01-01 00:00:03 UTC',
    ]) {
      expect(third).toContain(text);
    }
    expect(third).toContain('class="status-bad"');
    expect(html.slice(html.indexOf('data-seq="2"'), html.indexOf('data-seq="1"'))).toContain(
      '<td data-label="Via">console</td>',
    );
    expect(html.slice(html.indexOf('data-seq="1"'))).toContain('no user');
    expect(html).toContain('<th scope="col">Details</th>');
  });

  it("says who called in words (the person's email, the token's name), the ids on hover and in the details", () => {
    const items = [
      record(2, { user_email: 'ana@example.com', token_name: 'web console' }),
      // Not named by identity (another org's, or gone): the ids as they are.
      record(1, { user_email: null, token_name: null }),
    ];
    const html = render({ records: { items, limit: 50, has_more: false } });
    const named = html.slice(html.indexOf('data-seq="2"'), html.indexOf('data-seq="1"'));
    const who = /<td data-label="Who">([\s\S]*?)<\/td>/.exec(named)![1]!;
    expect(who).toContain('<span class="who-user" title="usr_2">ana@example.com</span>');
    expect(who).toContain('title="tok_2">token “web console”</small>');
    expect(who).not.toMatch(/>usr_2|>tok_2/);
    const details = /<details class="record-details">([\s\S]*?)<\/details>/.exec(named)![1]!;
    expect(details).toContain('<dt>User id</dt><dd><code>usr_2</code></dd>');
    expect(details).toContain('<dt>Token id</dt><dd><code>tok_2</code></dd>');
    expect(details).toContain('<dt>Request id</dt><dd><code>req-2</code></dd>');
    const unnamed = html.slice(html.indexOf('data-seq="1"'));
    expect(/<td data-label="Who">([\s\S]*?)<\/td>/.exec(unnamed)![1]).toContain('>usr_1</span>');
    expect(/<td data-label="Who">([\s\S]*?)<\/td>/.exec(unnamed)![1]).toContain('>tok_1</small>');
  });

  it('shows params as pretty JSON text in the details: markup in them stays text', () => {
    const params = { search: '<script>alert("x")</script>', nested: { img: '<img src=x onerror=alert(1)>' } };
    const html = render({ records: { items: [record(1, { params })], limit: 50, has_more: false } });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script>alert(\\&quot;x\\&quot;)&lt;/script>');
    const shown =
      /<details class="record-details"><summary>Params, ids.*?<\/summary>.*?<pre><code>([\s\S]*?)<\/code><\/pre><\/details>/.exec(
        html,
      )![1]!;
    const text = shown
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&');
    expect(text).toBe(JSON.stringify(params, null, 2));
  });

  it('pages back from the last record shown, and back to the newest', () => {
    const items = [record(60), record(59)];
    const first = render({ records: { items, limit: 2, has_more: true } });
    expect(first).toContain('href="/audit?project=prj_1&amp;before_seq=59"');
    expect(first).not.toContain('Newest records');
    const older = render({ records: { items: [record(1)], limit: 2, has_more: false }, beforeSeq: 2 });
    expect(older).not.toContain('before_seq=');
    expect(older).toContain('href="/audit?project=prj_1">Newest records');
  });

  it('says an intact chain with role=status: the records checked and the checkpoint held against', () => {
    const html = render({
      verification: {
        checked: { ok: true, checked: 42, checkpoint: { seq: 42, at: '2030-01-01T00:10:00.000Z' } },
      },
    });
    const status = /<div role="status"[^>]*>([\s\S]*?)<\/div>/.exec(html)![1]!;
    expect(status).toContain('Hash chain intact:');
    expect(status).toContain('42 records checked');
    expect(status).toContain('checkpoint signed at seq 42 (2030-01-01 00:10:00 UTC)');
    expect(html).not.toContain('role="alert"');
    const none = render({ verification: { checked: { ok: true, checked: 1, checkpoint: null } } });
    expect(none).toContain('1 record checked, with no signed checkpoint yet');
  });

  it('says a broken chain with role=alert, every problem listed', () => {
    const html = render({
      verification: {
        checked: {
          ok: false,
          checked: 2,
          broken_at_seq: 3,
          code: 'hash_mismatch',
          reason: 'record 3 <b>changed</b>',
          checkpoint: { seq: 5 },
          problems: [
            { code: 'hash_mismatch', reason: 'record 3 <b>changed</b>', broken_at_seq: 3 },
            { code: 'checkpoint_mismatch', reason: 'record 5 is not the one checkpointed', broken_at_seq: 5 },
          ],
          warnings: ['line 9 of the log is incomplete'],
        },
      },
    });
    const alert = /<div role="alert"[^>]*>([\s\S]*?)<\/div>/.exec(html)![1]!;
    expect(alert).toContain('Hash chain BROKEN</strong> at seq 3');
    expect(alert).toContain('2 records intact before the break');
    expect(alert).toContain('<code>hash_mismatch</code> (seq 3): record 3 &lt;b>changed&lt;/b>');
    expect(alert).toContain('<code>checkpoint_mismatch</code> (seq 5)');
    expect(alert).toContain('line 9 of the log is incomplete');
    expect(html).not.toContain('role="status"');
  });

  it('says when the chain could not be verified, without hiding the records', () => {
    const html = render({
      records: { items: [record(1)], limit: 50, has_more: false },
      verification: { unavailable: 'The hash chain could not be checked right now.' },
    });
    expect(html).toContain('role="alert"');
    expect(html).toContain('Not verified.');
    expect(rowsOf(html)).toEqual([1]);
  });
});
