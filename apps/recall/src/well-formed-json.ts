// Text read from device files may hold lone UTF-16 surrogates (a JSON "\ud800" escape decodes to
// one): ill-formed text that some JSON parsers, databases and terminals refuse. Each becomes
// U+FFFD, like an invalid UTF-8 byte does when the file's bytes are decoded: in decoded strings
// with tool-kit's toWellFormed, in JSON text passed on as it is with wellFormedJsonText.

const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** The code unit of a `\uXXXX` escape starting at `i` (the backslash), or -1. */
function escapedUnit(json: string, i: number): number {
  if (json.charCodeAt(i + 1) !== 117 /* u */ || i + 6 > json.length) return -1;
  for (let k = i + 2; k < i + 6; k++) if (!isHex(json.charCodeAt(k))) return -1;
  return Number.parseInt(json.slice(i + 2, i + 6), 16);
}

const isHigh = (u: number) => u >= 0xd800 && u <= 0xdbff;
const isLow = (u: number) => u >= 0xdc00 && u <= 0xdfff;

/**
 * JSON text whose `\uXXXX` escapes of lone surrogates are replaced by `\ufffd`, so that parsing it
 * never gives ill-formed text. `json` must be valid JSON: every backslash in it then starts an
 * escape inside a string. One pass, no parsing.
 */
export function wellFormedJsonText(json: string): string {
  if (!/\\u[dD][89a-fA-F]/.test(json)) return json;
  let out = '';
  let from = 0;
  for (let i = json.indexOf('\\'); i !== -1; i = json.indexOf('\\', i)) {
    const unit = escapedUnit(json, i);
    if (unit === -1) {
      i += 2; // any other escape: the backslash and the character it escapes
      continue;
    }
    if (isHigh(unit) && json.charCodeAt(i + 6) === 92 && isLow(escapedUnit(json, i + 6))) {
      i += 12;
      continue;
    }
    if (isHigh(unit) || isLow(unit)) {
      out += `${json.slice(from, i)}\\ufffd`;
      from = i + 6;
    }
    i += 6;
  }
  return out + json.slice(from);
}
