import type { RecallFile } from '@svc/tools-recall';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { TEST_PAGE_CONTEXT } from '../testing/page-context';
import type { ToolAnswer } from '../tool-calls';
import {
  DownloadFailedPage,
  type FileEntries,
  type FileEntry,
  formatBytes,
  RecallAuditPage,
  RecallFilePage,
  RecallNotDeployedPage,
  RecallPage,
} from './recall';

// The recall pages rendered as the server sends them, on constructed tool answers. File contents
// are attacker-controlled: they must come out as text.

const ctx = TEST_PAGE_CONTEXT;

const FILE_ID = 'rf_0123456789abcdef01234567';
const file: RecallFile = {
  file_id: FILE_ID,
  device_id: 'dev-<1>',
  user_id: 'user_7',
  session_id: null,
  file_name: 'crash-<img src=x onerror=alert(1)>.log',
  date: '2030-01-01',
  size_bytes: 2560,
  uploaded_at: '2030-01-02T03:04:05.000Z',
};
const ok = (result: unknown): ToolAnswer => ({ ok: true, status: 200, result });

function entry(line: number, extra: Partial<FileEntry> = {}): FileEntry {
  return {
    line,
    ts: `2030-01-01T00:00:0${line}Z`,
    level: 'INFO',
    tag: null,
    message: `m${line}`,
    fields: {},
    ...extra,
  };
}

function entries(extra: Partial<FileEntries> = {}): FileEntries {
  return {
    file_id: FILE_ID,
    found: true,
    file,
    status: 'ok',
    problem: null,
    lines_read: 3,
    items: [entry(1), entry(2)],
    limit: 2,
    has_more: false,
    scanned_through_line: 3,
    ...extra,
  };
}

describe('formatBytes', () => {
  it('says sizes in the unit people read', () => {
    expect([0, 1023, 1024, 2560, 10 * 1024 * 1024, 5 * 1024 ** 3].map(formatBytes)).toEqual([
      '0 B',
      '1023 B',
      '1.0 KB',
      '2.5 KB',
      '10 MB',
      '5.0 GB',
    ]);
  });
});

describe('RecallPage', () => {
  it('lists files with device, user, session, name, day, size and upload time, each with its actions', () => {
    const html = renderToString(
      h(RecallPage, { ctx, filters: {}, files: ok({ items: [file], limit: 50, has_more: false }) }),
    );
    const row = /<tr data-file-id="rf_0123456789abcdef01234567">([\s\S]*?)<\/tr>/.exec(html)![1]!;
    for (const text of ['dev-&lt;1>', 'user_7', '2030-01-01', '2.5 KB', '2030-01-02 03:04:05 UTC', FILE_ID]) {
      expect(row).toContain(text);
    }
    // Every cell says its column on a phone, where each row is a card of labelled lines.
    for (const label of ['File', 'Device', 'Covers', 'Size', 'Uploaded']) {
      expect(row).toContain(`data-label="${label}"`);
    }
    expect(row).toContain('end user user_7');
    expect(row).toContain('no session');
    expect(row).toContain('crash-&lt;img src=x onerror=alert(1)>.log');
    expect(html).not.toContain('<img src=x');
    expect(row).toContain(`href="/recall/files/${FILE_ID}?project=prj_1"`);
    // Download is a POST with the CSRF token (an audited action), not a link.
    expect(row).toMatch(
      new RegExp(
        `<form method="post" action="/recall/files/${FILE_ID}/download\\?project=prj_1"[^>]*><input type="hidden" name="_csrf" value="csrf-token"/>`,
      ),
    );
    expect(html).toMatch(
      /<form method="post" action="\/recall\/trigger\?project=prj_1" id="trigger-recall"><input type="hidden" name="_csrf"/,
    );
    for (const id of [
      'trigger-device',
      'trigger-user',
      'filter-device',
      'filter-user',
      'filter-date',
      'filter-q',
      'filter-limit',
    ]) {
      expect(html).toContain(`<label for="${id}">`);
    }
  });

  it('keeps the filters in the form, offers more when the tool says has_more, and says notices', () => {
    const filters = { device_id: 'dev-1', q: 'crash' };
    const html = renderToString(
      h(RecallPage, {
        ctx,
        filters,
        files: ok({ items: [file], limit: 50, has_more: true }),
        notice: 'Recall requested (request rr_abc).',
      }),
    );
    expect(html).toMatch(/<input id="filter-device" name="device_id" value="dev-1"/);
    expect(html).toContain('href="/recall?project=prj_1&amp;device_id=dev-1&amp;q=crash&amp;limit=100"');
    expect(html).toContain(
      '<p role="status" class="notice ok" id="recall-notice">Recall requested (request rr_abc).</p>',
    );
  });

  it("shows the tool's refusal with its status and what it can mean", () => {
    const html = renderToString(
      h(RecallPage, {
        ctx,
        filters: {},
        files: {
          ok: false,
          status: 404,
          error: { error: 'not_found', message: 'Unknown tool: log.list_files' },
        },
      }),
    );
    const alert = /<div role="alert" class="notice error" id="tool-error">([\s\S]*?)<\/div>/.exec(html)![1]!;
    expect(alert).toContain(
      '<code>log.list_files</code> answered <strong>404</strong> <code>not_found</code>',
    );
    expect(alert).toContain('vis_recall');
    expect(html).not.toContain('id="recall-files"');
    expect(html).toContain('id="trigger-recall"');
  });
});

describe('RecallFilePage', () => {
  it('shows the entries as text, with the file and a download, and pages with after_line', () => {
    const items = [
      entry(1, { message: '<script>alert(1)</script>', tag: 'Checkout' }),
      entry(2, { level: 'ERROR', fields: { code: 'card_declined', nested: '{"a":1}' } }),
    ];
    const html = renderToString(
      h(RecallFilePage, {
        ctx,
        fileId: FILE_ID,
        filters: { level: 'error' },
        entries: ok(entries({ items, has_more: true, lines_read: 2, scanned_through_line: 2 })),
      }),
    );
    expect([...html.matchAll(/<tr data-line="(\d+)">/g)].map((m) => m[1])).toEqual(['1', '2']);
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('<td class="message" data-label="Message">&lt;script>alert(1)&lt;/script></td>');
    expect(html).toContain('<summary>2 fields<span class="visually-hidden"> of line 2</span></summary>');
    expect(html).toContain('readable through line 2 (the file goes on)');
    expect(html).toContain(`/recall/files/${FILE_ID}/download?project=prj_1`);
    expect(html).toContain(
      `href="/recall/files/${FILE_ID}?project=prj_1&amp;level=error&amp;after_line=2" rel="next"`,
    );
    expect(html).not.toContain('From the first entry');
    expect(html).toContain('records a <em>view</em>');
  });

  it('counts the entries of a file read whole in one call', () => {
    const html = renderToString(
      h(RecallFilePage, { ctx, fileId: FILE_ID, filters: {}, entries: ok(entries()) }),
    );
    expect(html).toContain('readable, 3 entries');
    expect(html).not.toContain('rel="next"');
  });

  it('keeps looking past a slice in which the filter matched nothing (pages by scanned_through_line)', () => {
    const html = renderToString(
      h(RecallFilePage, {
        ctx,
        fileId: FILE_ID,
        filters: { level: 'fatal' },
        entries: ok(
          entries({ items: [], has_more: true, lines_read: 100_000, scanned_through_line: 100_000 }),
        ),
      }),
    );
    expect(html).toContain('No entry matches up to line 100000; the file goes on.');
    expect(html).toContain(
      `href="/recall/files/${FILE_ID}?project=prj_1&amp;level=fatal&amp;after_line=100000" rel="next"`,
    );
    expect(html).toContain('Keep looking (after line 100000)');
    expect(html).toContain('readable through line 100000 (the file goes on)');
  });

  it('says an unreadable file with role=alert: the stage, the line, and what could be read', () => {
    const html = renderToString(
      h(RecallFilePage, {
        ctx,
        fileId: FILE_ID,
        filters: { after_line: '1' },
        entries: ok(
          entries({
            status: 'unreadable',
            problem: { stage: 'parse', line: 3, message: 'not a JSON object' },
            lines_read: 2,
            items: [entry(2)],
          }),
        ),
      }),
    );
    const alert = /<div role="alert" class="notice error" id="file-problem">([\s\S]*?)<\/div>/.exec(
      html,
    )![1]!;
    expect(alert).toContain('(parse at line 3): not a JSON object');
    expect(alert).toContain('The 2 entries before that point are listed below.');
    expect(html).toContain('From the first entry');
    expect(html).not.toContain('rel="next"');
  });

  it('says when the project has no such file', () => {
    const html = renderToString(
      h(RecallFilePage, {
        ctx,
        fileId: FILE_ID,
        filters: {},
        entries: ok(entries({ found: false, file: null, items: [], lines_read: 0 })),
      }),
    );
    expect(html).toContain(`This project has no file <code>${FILE_ID}</code>.`);
    expect(html).not.toContain('id="file-entries"');
  });
});

describe('RecallAuditPage', () => {
  it('lists who did what to which file, with the filters kept', () => {
    const items = [
      {
        at: '2030-01-01T00:00:00.000Z',
        action: 'view',
        via: 'rest',
        user_id: 'usr_1',
        token_id: 'tok_console',
        file_id: FILE_ID,
        device_id: 'dev-1',
        target_user_id: '<u>',
      },
      {
        at: '2030-01-01T00:00:01.000Z',
        action: 'trigger',
        via: 'console',
        user_id: 'usr_1',
        token_id: null,
        file_id: null,
        device_id: null,
        target_user_id: 'user_7',
      },
    ];
    const html = renderToString(
      h(RecallAuditPage, {
        ctx,
        filters: { action: 'view' },
        trail: ok({ items, limit: 100, has_more: false }),
      }),
    );
    expect(html).toContain('<option value="view" selected>view</option>');
    expect(html).toContain('tok_console');
    expect(html).toContain('via rest');
    expect(html).toContain('via console');
    expect(html).toContain('&lt;u>');
    expect(html).toContain(`<a href="/recall/files/${FILE_ID}?project=prj_1">${FILE_ID}</a>`);
    expect(html.match(/<tr>/g)?.length).toBe(3);
  });
});

describe('RecallAuditPage names', () => {
  it("says who in words with identity's names (ids on hover), and ids where it has none", () => {
    const item = {
      at: '2030-01-01T00:00:00.000Z',
      action: 'view',
      via: 'console',
      file_id: FILE_ID,
      device_id: 'dev-1',
      target_user_id: null,
    };
    const items = [
      { ...item, user_id: 'usr_1', token_id: 'tok_1' },
      { ...item, user_id: 'usr_other', token_id: 'tok_other' },
    ];
    const html = renderToString(
      h(RecallAuditPage, {
        ctx,
        filters: {},
        trail: ok({ items, limit: 100, has_more: false }),
        names: {
          users: [{ user_id: 'usr_1', email: 'ana@<example>.com' }],
          tokens: [{ token_id: 'tok_1', name: 'web console' }],
        },
      }),
    );
    const [named, unnamed] = [...html.matchAll(/<td data-label="Who">([\s\S]*?)<\/td>/g)].map((m) => m[1]!);
    expect(named).toContain('<span class="who-user" title="usr_1">ana@&lt;example>.com</span>');
    expect(named).toContain('title="tok_1">token “web console”</small>');
    expect(unnamed).toContain('<span class="who-user">usr_other</span>');
    expect(unnamed).toContain('>tok_other</small>');
  });
});

describe('other recall pages', () => {
  it('say recall is not deployed, and why a download failed', () => {
    expect(renderToString(h(RecallNotDeployedPage, { ctx }))).toContain('Recall is not deployed');
    const failed = renderToString(
      h(DownloadFailedPage, {
        ctx,
        fileId: FILE_ID,
        message: 'This file cannot be read to its end.',
        problem: { stage: 'decompress', line: 7, message: 'unexpected end of <file>' },
      }),
    );
    expect(failed).toContain('role="alert"');
    expect(failed).toContain('decompress at line 7: unexpected end of &lt;file>');
    expect(failed).toContain(`href="/recall/files/${FILE_ID}?project=prj_1"`);
  });
});
