import { type DemoOptions, iterateDemoBatches } from './generate';
import type { DemoBatch, DemoLog } from './records';

/** A device log file as the app would upload it (entries before encryption). */
export interface DemoRecallFile {
  device_id: string;
  user_id: string;
  session_id: string;
  file_name: string;
  /** The day the file covers (YYYY-MM-DD). */
  date: string;
  /** NDJSON entries {ts, level, tag, message}; absent for the damaged file. */
  entries?: { ts: string; level: string; tag: string; message: string }[];
  /** The damaged file's plain text (NDJSON with a broken line), compressed and encrypted as sent. */
  damagedText?: string;
}

export interface DemoRecall {
  files: DemoRecallFile[];
  /** A recall asked for from the console and not yet answered by the device. */
  pending: { device_id: string; user_id: string };
}

const TAGS: Record<string, string> = { INFO: 'App', DEBUG: 'App', WARN: 'Net', ERROR: 'App', FATAL: 'Crash' };

/** The recall demo draws on the project's first users only, so any size costs the same. */
export const RECALL_DEMO_USERS = 50;

/**
 * Device log files for the recall demo, from the device logs of the project's first
 * RECALL_DEMO_USERS users: the last crashed session that left a crash (its file ends with the
 * FATAL line of that crash), the sessions of two other devices, one file damaged in the middle,
 * and a pending recall for a fourth device.
 */
export function generateDemoRecall(options: DemoOptions): DemoRecall {
  const project: DemoBatch = iterateDemoBatches(options, RECALL_DEMO_USERS).next().value;
  const deviceLogs = new Map<string, DemoLog[]>();
  for (const l of project.logs) {
    if (l.source !== 'device' || !l.session_id) continue;
    deviceLogs.set(l.session_id, [...(deviceLogs.get(l.session_id) ?? []), l]);
  }
  const crashed = new Set(project.crashes.map((c) => c.session_id));
  const sessions = [...project.sessions].sort((a, b) => Date.parse(b.started_at) - Date.parse(a.started_at));
  const pick = (keep: (s: (typeof sessions)[number]) => boolean, avoid: Set<string>) =>
    sessions.find(
      (s) => keep(s) && !avoid.has(s.user_id) && (deviceLogs.get(s.session_id)?.length ?? 0) >= 5,
    );
  const users = new Set<string>();
  const chosen = [];
  const crash = pick((s) => s.status === 'crashed' && crashed.has(s.session_id), users);
  if (crash) {
    users.add(crash.user_id);
    chosen.push({ session: crash, name: 'crash' });
  }
  for (const name of ['session', 'session', 'damaged']) {
    const s = pick((x) => x.status === 'ok', users);
    if (!s) continue;
    users.add(s.user_id);
    chosen.push({ session: s, name });
  }
  const deviceOf = (userId: string) =>
    project.logs.find((l) => l.user_id === userId && l.device_id)?.device_id ?? `dev_${userId}`;
  const files: DemoRecallFile[] = chosen.map(({ session, name }) => {
    const entries = deviceLogs.get(session.session_id)!.map((l) => ({
      ts: l.timestamp,
      level: l.level,
      tag: TAGS[l.level] ?? 'App',
      message: l.message,
    }));
    const date = session.started_at.slice(0, 10);
    const base = {
      device_id: deviceOf(session.user_id),
      user_id: session.user_id,
      session_id: session.session_id,
      date,
      file_name: `${name === 'crash' ? 'crash' : 'app'}-${date}-${session.session_id.slice(5, 13)}.log`,
    };
    if (name !== 'damaged') return { ...base, entries };
    // The app was killed while writing: a line cut off in the middle, entries after it.
    const lines = entries.map((e) => JSON.stringify(e));
    const cut = Math.floor(lines.length / 2);
    lines[cut] = lines[cut]!.slice(0, Math.floor(lines[cut]!.length / 2));
    return { ...base, damagedText: `${lines.join('\n')}\n` };
  });
  const others = sessions.find((s) => !users.has(s.user_id));
  const pendingUser = others?.user_id ?? sessions[0]!.user_id;
  return { files, pending: { device_id: deviceOf(pendingUser), user_id: pendingUser } };
}
