// Both drivers return int8 (bigint, count(*)) the same way: a JS number while it is exact,
// the decimal string beyond 2^53 so no precision is silently lost.
export function parseInt8(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

export const INT8_OID = 20;
