// Which bytes of a line are blank, without decoding it: a line is blank when String.prototype.trim
// would leave nothing of its UTF-8 text. Device files are attacker-controlled, and a file of
// millions of lines of a no-break space or a byte-order mark must cost what a file of empty lines
// costs: a loop over bytes, not a decoded string and a trim() per line.

/** Bytes of JSON whitespace, and \v and \f, which trim() removes as well. */
export const isAsciiBlank = (b: number) => b === 32 || b === 9 || b === 13 || b === 11 || b === 12;

/** A blank character needs more bytes than the chunk holds: the caller cannot tell here. */
export const UNKNOWN = -1;

/**
 * The UTF-8 length of the blank character (one trim() removes) starting at `at`, 0 when the bytes
 * there are not one, UNKNOWN when they could be one whose last bytes are in the next chunk. The
 * blanks outside ASCII are U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F,
 * U+3000 and U+FEFF (a test holds this against trim() for every code point).
 */
export function unicodeBlankLength(bytes: Uint8Array, at: number): number {
  const lead = bytes[at];
  if (lead === 0xc2) {
    if (at + 1 >= bytes.length) return UNKNOWN;
    return bytes[at + 1] === 0xa0 ? 2 : 0;
  }
  if (lead !== 0xe1 && lead !== 0xe2 && lead !== 0xe3 && lead !== 0xef) return 0;
  if (at + 2 >= bytes.length) return UNKNOWN;
  const b1 = bytes[at + 1];
  const b2 = bytes[at + 2]!;
  switch (lead) {
    case 0xe1: // U+1680
      return b1 === 0x9a && b2 === 0x80 ? 3 : 0;
    case 0xe2: // U+2000..U+200A, U+2028, U+2029, U+202F; U+205F
      if (b1 === 0x80) return (b2 >= 0x80 && b2 <= 0x8a) || b2 === 0xa8 || b2 === 0xa9 || b2 === 0xaf ? 3 : 0;
      return b1 === 0x81 && b2 === 0x9f ? 3 : 0;
    case 0xe3: // U+3000
      return b1 === 0x80 && b2 === 0x80 ? 3 : 0;
    default: // 0xef: U+FEFF, the byte-order mark
      return b1 === 0xbb && b2 === 0xbf ? 3 : 0;
  }
}
