import type { ExportSend } from './exporter-types';

/**
 * The default sender: fetch, in browsers with keepalive when asked. The timeout is a timer of its
 * own: React Native has no AbortSignal.timeout.
 */
export const fetchSend: ExportSend = async (url, { headers, body, keepalive, timeoutMs }) => {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetch(url, { method: 'POST', headers, body, keepalive, signal: controller.signal });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, header: (name) => res.headers.get(name) };
  } finally {
    clearTimeout(timer);
  }
};
