/**
 * An env file as docker compose reads `.env` for interpolation: `KEY=VALUE` lines, `#` comments and
 * blank lines skipped, a value in single or double quotes taken without them.
 */
export function parseDotenv(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) throw new Error(`line ${index + 1} is not KEY=VALUE: ${raw}`);
    const value = m[2]!;
    const quoted = /^(['"])(.*)\1$/.exec(value);
    vars[m[1]!] = quoted ? quoted[2]! : value;
  }
  return vars;
}
