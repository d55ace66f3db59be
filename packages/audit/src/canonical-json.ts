/**
 * Deterministic JSON: object keys sorted by code unit at every depth, no whitespace, otherwise
 * JSON.stringify's rules (undefined members dropped, undefined in arrays and non-finite numbers
 * become null). Two structurally equal values always give the same text, whatever their key
 * order, so a hash over it survives a round trip through a store such as jsonb.
 */
export function canonicalJson(value: unknown): string {
  return serialize(value) ?? 'null';
}

function serialize(value: unknown): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'bigint') throw new TypeError('canonicalJson: bigint is not JSON');
  if (typeof value !== 'object') return JSON.stringify(value) as string | undefined;
  const withToJson = value as { toJSON?: () => unknown };
  if (typeof withToJson.toJSON === 'function') return serialize(withToJson.toJSON());
  if (Array.isArray(value)) return `[${value.map((item) => serialize(item) ?? 'null').join(',')}]`;
  const members: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const member = serialize((value as Record<string, unknown>)[key]);
    if (member !== undefined) members.push(`${JSON.stringify(key)}:${member}`);
  }
  return `{${members.join(',')}}`;
}
