/** @jsxRuntime automatic @jsxImportSource preact */

import type { RecallFile } from '@svc/tools-recall';
import { CsrfField, formatTime, href, type PageContext } from './layout';

// The devices behind the listed files: recall works per device (or per end user), so the page
// names each one once, with its files and a one-click request for its logs.

export interface RecallDevice {
  device_id: string;
  user_ids: string[];
  files: number;
  last_upload: string;
}

/** The listed files' devices, the most recent upload first. */
export function devicesOf(files: readonly RecallFile[]): RecallDevice[] {
  const byDevice = new Map<string, RecallDevice>();
  for (const f of files) {
    const d = byDevice.get(f.device_id) ?? {
      device_id: f.device_id,
      user_ids: [],
      files: 0,
      last_upload: f.uploaded_at,
    };
    d.files += 1;
    if (f.user_id && !d.user_ids.includes(f.user_id)) d.user_ids.push(f.user_id);
    if (Date.parse(f.uploaded_at) > Date.parse(d.last_upload)) d.last_upload = f.uploaded_at;
    byDevice.set(f.device_id, d);
  }
  return [...byDevice.values()].sort(
    (a, b) => Date.parse(b.last_upload) - Date.parse(a.last_upload) || a.device_id.localeCompare(b.device_id),
  );
}

export function DevicesTable({ ctx, files }: { ctx: PageContext; files: readonly RecallFile[] }) {
  const devices = devicesOf(files);
  return (
    <section aria-labelledby="devices-heading">
      <h2 id="devices-heading">Devices</h2>
      <p class="muted">The devices of the files listed below.</p>
      <div class="overflow-auto">
        <table id="recall-devices" class="records">
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">End users</th>
              <th scope="col">Files</th>
              <th scope="col">Last upload</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {devices.map((d) => (
              <tr key={d.device_id} data-device-id={d.device_id}>
                <th scope="row" data-label="Device">
                  {d.device_id}
                </th>
                <td data-label="End users">
                  {d.user_ids.length > 0 ? d.user_ids.join(', ') : <span class="muted">—</span>}
                </td>
                <td data-label="Files">
                  <a href={href('/recall', ctx.projectId, { device_id: d.device_id })}>
                    {d.files}
                    <span class="visually-hidden"> files of {d.device_id}</span>
                  </a>
                </td>
                <td data-label="Last upload">{formatTime(d.last_upload)}</td>
                <td class="actions">
                  <form method="post" action={href('/recall/trigger', ctx.projectId)}>
                    <CsrfField csrf={ctx.csrf} />
                    <input type="hidden" name="device_id" value={d.device_id} />
                    <button type="submit" class="secondary outline">
                      Recall its logs<span class="visually-hidden"> ({d.device_id})</span>
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
