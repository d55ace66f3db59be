/** @jsxRuntime automatic @jsxImportSource preact */

// Tool descriptions write names and values as Markdown code spans (`limit`, `has_more`). The
// runner shows them as <code>; everything else stays text, escaped by JSX like any other value, so
// a description can never become markup.

/** The text in pieces: plain text, and the insides of paired backticks (an unpaired one is text). */
export function codeSpans(text: string): { code: boolean; text: string }[] {
  const parts = text.split('`');
  const pieces: { code: boolean; text: string }[] = [];
  const push = (code: boolean, value: string) => {
    const last = pieces.at(-1);
    if (!code && last && !last.code) last.text += value;
    else if (value !== '' || code) pieces.push({ code, text: value });
  };
  parts.forEach((part, i) => {
    const inside = i % 2 === 1;
    // A backtick with no partner (the last odd one), or an empty pair, is printed as it is.
    if (inside && i === parts.length - 1) push(false, `\`${part}`);
    else if (inside && part === '') push(false, '``');
    else push(inside, part);
  });
  return pieces;
}

export function CodeSpans({ text }: { text: string }) {
  return (
    <>{codeSpans(text).map((piece, i) => (piece.code ? <code key={i}>{piece.text}</code> : piece.text))}</>
  );
}
