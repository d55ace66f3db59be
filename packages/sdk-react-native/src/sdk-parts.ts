import {
  type BatchExporter,
  createExporter,
  createTracerIn,
  type IngestTarget,
  ingestTransport,
  newTraceId,
  parseDsn,
  type Tracer,
} from '@svc/sdk-core';
import { Breadcrumbs } from './breadcrumbs';
import { utf8 } from './bytes';
import { cleanId } from './clean-records';
import { LogFiles } from './log-files';
import { Outbox } from './outbox';
import type { MobilePlatform } from './platform';
import { originOf } from './propagation';
import { RecallUploader } from './recall';
import { syncScope } from './scope';
import type { SdkReporter } from './sdk-reporter';
import type { MobileSdkOptions } from './sdk-types';
import { DEFAULT_SESSION_TIMEOUT_MS, Sessions } from './sessions';
import { SignedClient } from './signed-client';

/** Who the records are of: the install and the signed-in user (both may change after init). */
export interface Who {
  deviceId: string | undefined;
  userId: string | undefined;
  /** The user records carry: the signed-in one, else the device. */
  user(): string;
}

/** The pieces of one SDK, built at init; the SDK's behaviour is wired from them. */
export interface MobileParts {
  options: MobileSdkOptions;
  platform: MobilePlatform;
  target: IngestTarget;
  /** The recall service's base URL without a trailing slash, when there is one. */
  recallEndpoint: string | undefined;
  reporter: SdkReporter;
  who: Who;
  client: SignedClient;
  exporter: BatchExporter;
  tracer: Tracer;
  breadcrumbs: Breadcrumbs;
  files: LogFiles;
  outbox: Outbox;
  sessions: Sessions;
  recall: RecallUploader | undefined;
}

/** The DSN's parts; configuration errors throw here, at init. */
export function checkOptions(options: MobileSdkOptions): IngestTarget {
  const target = parseDsn(options.dsn);
  if (typeof options.appVersion !== 'string' || !options.appVersion || options.appVersion.length > 100)
    throw new TypeError('appVersion must be the app version, 1 to 100 characters');
  if (options.recallEndpoint !== undefined && !originOf(options.recallEndpoint))
    throw new TypeError('recallEndpoint must be an http(s) URL, e.g. http://localhost:8087');
  return target;
}

function telemetry(
  options: MobileSdkOptions,
  target: IngestTarget,
  client: SignedClient,
  { report }: SdkReporter,
): { exporter: BatchExporter; tracer: Tracer } {
  const exporter = createExporter(
    {
      // A phone's radio: a batch every 5 s (and whatever waits when the app leaves the
      // foreground), two requests in flight at most.
      flushIntervalMs: 5_000,
      concurrency: 2,
      ...options.exporter,
      dsn: target,
      onError: (e) =>
        report({
          reason: e.reason,
          message: `${e.records} record(s) not delivered: ${e.reason}`,
          ...(e.status ? { status: e.status } : {}),
        }),
    },
    ingestTransport((_secret, timestamp, body) => client.signature(timestamp, utf8(body)), {
      send: client.send,
    }),
  );
  const tracer = createTracerIn(
    { scope: syncScope, exporter: () => exporter, logSource: 'device' },
    {
      service: options.service ?? 'mobile',
      ...(options.sampleRate !== undefined ? { sampleRate: options.sampleRate } : {}),
      exporter,
    },
  );
  return { exporter, tracer };
}

function recallOf(
  parts: Pick<MobileParts, 'platform' | 'files' | 'client' | 'who' | 'sessions' | 'reporter'>,
  endpoint: string,
): RecallUploader {
  const { platform, who } = parts;
  return new RecallUploader({
    storage: platform.storage,
    files: parts.files,
    client: parts.client,
    endpoint,
    crypto: platform.crypto,
    compression: platform.compression,
    deviceId: () => who.deviceId ?? 'unknown',
    userId: () => who.userId,
    sessionId: () => parts.sessions.id,
    events: {
      uploaded: () => undefined,
      dropped: (reason, status) =>
        parts.reporter.report({
          reason: 'dropped',
          message: `a log file upload was dropped: ${reason}`,
          ...(status ? { status } : {}),
        }),
    },
  });
}

export function buildParts(
  options: MobileSdkOptions,
  platform: MobilePlatform,
  reporter: SdkReporter,
): MobileParts {
  const target = checkOptions(options);
  const recallEndpoint = options.recallEndpoint?.replace(/\/+$/, '');
  const client = new SignedClient(target, platform.crypto, platform.fetch);
  const who: Who = {
    deviceId: cleanId(options.deviceId),
    userId: cleanId(options.userId),
    user: () => who.userId ?? who.deviceId ?? 'unknown',
  };
  const files = new LogFiles(platform.storage, options.logFiles, reporter.storageFailed);
  const outbox = new Outbox(platform.storage, client, newTraceId, {
    rejected: (status) =>
      reporter.report({
        reason: 'rejected',
        message: 'a stored report (a crash, a session, or telemetry kept at a crash) was refused',
        status,
      }),
    dropped: () => reporter.report({ reason: 'dropped', message: 'a session report was dropped for room' }),
  });
  const sessions = new Sessions(
    platform.storage,
    outbox,
    newTraceId,
    { platform: platform.device.platform, app_version: options.appVersion },
    who.user,
    options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS,
  );
  const parts = { options, platform, target, recallEndpoint, reporter, who, client, files, outbox, sessions };
  return {
    ...parts,
    ...telemetry(options, target, client, reporter),
    breadcrumbs: new Breadcrumbs(options.maxBreadcrumbs),
    recall: recallEndpoint ? recallOf(parts, recallEndpoint) : undefined,
  };
}
