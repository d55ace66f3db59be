import type { RecallFile } from '@svc/tools-recall';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { TEST_PAGE_CONTEXT } from '../testing/page-context';
import { DevicesTable, devicesOf } from './recall-devices';

const file = (n: number, device: string, user: string | null, uploaded: string): RecallFile => ({
  file_id: `rf_${n}`,
  device_id: device,
  user_id: user,
  session_id: null,
  file_name: `app-${n}.log`,
  date: uploaded.slice(0, 10),
  size_bytes: 100 * n,
  uploaded_at: uploaded,
});

const FILES = [
  file(1, 'dev_a', 'u1', '2026-11-20T10:00:00.000Z'),
  file(2, 'dev_b', null, '2026-11-22T10:00:00.000Z'),
  file(3, 'dev_a', 'u2', '2026-11-23T09:00:00.000Z'),
  file(4, 'dev_a', 'u1', '2026-11-21T10:00:00.000Z'),
  file(5, 'dev_<c>', 'u3', '2026-11-19T10:00:00.000Z'),
];

describe('the devices of the listed files', () => {
  it('names each device once with its users, file count and latest upload, most recent first', () => {
    const expected = [...new Set(FILES.map((f) => f.device_id))]
      .map((device) => {
        const own = FILES.filter((f) => f.device_id === device);
        return {
          device_id: device,
          user_ids: [...new Set(own.map((f) => f.user_id).filter((u): u is string => u !== null))],
          files: own.length,
          last_upload: own
            .map((f) => f.uploaded_at)
            .sort()
            .at(-1)!,
        };
      })
      .sort((a, b) => b.last_upload.localeCompare(a.last_upload));
    expect(devicesOf(FILES)).toEqual(expected);
    expect(devicesOf(FILES).map((d) => d.device_id)).toEqual(['dev_a', 'dev_b', 'dev_<c>']);
  });

  it('offers a CSRF-protected recall per device and escapes what devices are called', () => {
    const ctx = TEST_PAGE_CONTEXT;
    const html = renderToString(h(DevicesTable, { ctx, files: FILES }));
    expect(html.match(/<form method="post" action="\/recall\/trigger\?project=prj_1">/g)).toHaveLength(3);
    expect(html.match(/name="_csrf" value="csrf-token"/g)).toHaveLength(3);
    expect(html).toContain('<input type="hidden" name="device_id" value="dev_a"/>');
    expect(html).toContain('dev_&lt;c>');
    expect(html).not.toContain('dev_<c>');
    expect(html).toContain('href="/recall?project=prj_1&amp;device_id=dev_a"');
  });
});
