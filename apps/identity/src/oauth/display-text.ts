// Text a client chose (its name, its client_id URL, its redirect URI) shown to a person deciding
// whether to trust it. Characters that change how the text around them reads are written out
// visibly instead: controls, bidirectional overrides and isolates (U+202E turns "edoC edualC" into
// "Claude Code"), zero-width and other format characters, line and paragraph separators.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** `text` with each such character replaced by its code point, e.g. `[U+202E]`. */
export function visibleText(text: string): string {
  return text.replace(
    INVISIBLE,
    (c) => `[U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`,
  );
}
