export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;

/** Epoch ms as ClickHouse DateTime64(3) text; columns are 'UTC', so this is read as UTC. */
export function toChTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** `toUnixTimestamp64Milli(...)` comes back as a quoted Int64; answer ISO 8601 UTC. */
export function isoFromMs(ms: string | number): string {
  return new Date(Number(ms)).toISOString();
}
