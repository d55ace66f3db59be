import type { Outbox } from './outbox';
import type { KeyValueStorage } from './platform';
import type { SessionRecord } from './records';

const SESSION_KEY = 'svc.session';
/** Back in the foreground within this long, the app goes on with the same session. */
export const DEFAULT_SESSION_TIMEOUT_MS = 30_000;

interface StoredSession extends SessionRecord {
  /** The last time the app was seen alive in this session: the end of a session that vanished. */
  last_seen?: number;
}

/**
 * Sessions for release health (docs/ingest.md, "sessions"). One starts with the app, ends when the
 * app goes to the background (reported then: the OS may end a process in the background without a
 * word), and goes on if the app is back within the timeout; else a new one starts. A fatal crash
 * ends it as `crashed`. A session that never ended (no background, no JS crash: a native crash, the
 * OS killing the app in the foreground) is reported as `abnormal` at the next start. Every report
 * goes through the outbox (written first, sent in order); the latest report of a session wins.
 * A change takes effect when its method is called, before anything waits for storage, so the
 * session `id` names is always the one the app is in now.
 */
export class Sessions {
  private session: StoredSession | undefined;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: KeyValueStorage,
    private readonly outbox: Outbox,
    private readonly newId: () => string,
    private readonly base: { platform: string; app_version: string },
    private readonly userId: () => string,
    private readonly timeoutMs = DEFAULT_SESSION_TIMEOUT_MS,
  ) {}

  get id(): string | undefined {
    return this.session?.session_id;
  }

  /** Settles the previous run's session (abnormal if it never ended) and starts one. */
  async start(now: number): Promise<void> {
    let previous: StoredSession | undefined;
    try {
      const raw = await this.storage.getItem(SESSION_KEY);
      previous = raw ? (JSON.parse(raw) as StoredSession) : undefined;
    } catch {
      // Unreadable state: the previous session is not known; a new one starts all the same.
    }
    if (previous && previous.ended_at === undefined && previous.status === 'ok') {
      const { last_seen, ...record } = previous;
      await this.outbox.enqueue(
        {
          sessions: [
            { ...record, status: 'abnormal', ended_at: Math.max(last_seen ?? 0, record.started_at) },
          ],
        },
        `session:${record.session_id}`,
      );
    }
    await this.begin(now);
  }

  /** The app went to the background: the session ends here unless the app comes back in time. */
  async background(now: number): Promise<void> {
    const s = this.session;
    if (!s || s.ended_at !== undefined) return;
    s.ended_at = now;
    s.last_seen = now;
    await this.report();
  }

  /** The app is in the foreground again: the same session if it was away briefly, else a new one. */
  async foreground(now: number): Promise<void> {
    const s = this.session;
    if (s && s.status === 'ok' && s.ended_at !== undefined && now - s.ended_at < this.timeoutMs) {
      delete s.ended_at;
      s.last_seen = now;
      await this.report();
    } else if (!s || s.ended_at !== undefined || s.status !== 'ok') await this.begin(now);
  }

  /** A fatal crash: the session ends `crashed`. Returns the report to send with the crash. */
  crashed(now: number): SessionRecord | undefined {
    const s = this.session;
    if (!s) return undefined;
    s.status = 'crashed';
    s.ended_at ??= now;
    s.last_seen = now;
    void this.save();
    return this.record();
  }

  /** The user signed in or out: the running session is reported with the new user. */
  async userChanged(): Promise<void> {
    if (!this.session || this.session.ended_at !== undefined) return;
    this.session.user_id = this.userId();
    await this.report();
  }

  /** Remembers that the app is alive, for the end of a session that later vanishes. */
  heartbeat(now: number): Promise<void> {
    if (!this.session || this.session.ended_at !== undefined) return Promise.resolve();
    this.session.last_seen = now;
    return this.save();
  }

  /** Resolves once the session's state is in storage. */
  save(): Promise<void> {
    const snapshot = JSON.stringify(this.session);
    this.saving = this.saving.then(() => this.storage.setItem(SESSION_KEY, snapshot)).catch(() => undefined);
    return this.saving;
  }

  private async begin(now: number): Promise<void> {
    this.session = {
      session_id: this.newId(),
      user_id: this.userId(),
      started_at: now,
      status: 'ok',
      platform: this.base.platform,
      app_version: this.base.app_version,
      last_seen: now,
    };
    await this.report();
  }

  private record(): SessionRecord {
    const { last_seen: _, ...record } = this.session!;
    return record;
  }

  /**
   * The session's report as it is now, written after its state: callers do not wait for storage
   * before the next change (a new session may have begun before this one's report is written).
   */
  private async report(): Promise<void> {
    const record = this.record();
    await this.save();
    await this.outbox.enqueue({ sessions: [record] }, `session:${record.session_id}`);
    void this.outbox.drain();
  }
}
