// Compose's variable interpolation (the Compose specification, "Interpolation"): `$$` is a literal
// `$`; `${VAR}` and `$VAR`; `${VAR:-default}` (unset or empty) and `${VAR-default}` (unset);
// `${VAR:?message}` / `${VAR?message}` refuse the file; `${VAR:+other}` / `${VAR+other}` replace a
// set value. The text after an operator may itself hold expressions (nested interpolation,
// `${A:-http://localhost:${B:-8094}}`), evaluated only when it is used.

export class InterpolationError extends Error {
  override readonly name = 'InterpolationError';
}

interface Expression {
  name: string;
  op: string | undefined;
  arg: Part[];
}
type Part = string | Expression;

const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const OPERATOR = /:?[-?+]/y;

const match = (re: RegExp, text: string, at: number) => {
  re.lastIndex = at;
  return re.exec(text)?.[0];
};

/** The parts of `text` from `at`: up to its end, or inside `${...}` up to the closing brace. */
function parse(text: string, at: number, inBraces: boolean): { parts: Part[]; end: number } {
  const parts: Part[] = [];
  let literal = '';
  const flush = () => {
    if (literal) parts.push(literal);
    literal = '';
  };
  let i = at;
  while (i < text.length) {
    const c = text[i]!;
    if (inBraces && c === '}') {
      flush();
      return { parts, end: i };
    }
    if (c === '$' && text[i + 1] === '$') {
      literal += '$';
      i += 2;
      continue;
    }
    if (c === '$' && text[i + 1] === '{') {
      const name = match(NAME, text, i + 2);
      if (!name) throw new InterpolationError(`invalid interpolation format: ${text.slice(i, i + 40)}`);
      let j = i + 2 + name.length;
      const op = match(OPERATOR, text, j);
      let arg: Part[] = [];
      if (op) ({ parts: arg, end: j } = parse(text, j + op.length, true));
      if (text[j] !== '}')
        throw new InterpolationError(`invalid interpolation format: ${text.slice(i, i + 40)}`);
      flush();
      parts.push({ name, op, arg });
      i = j + 1;
      continue;
    }
    const bare = c === '$' ? match(NAME, text, i + 1) : undefined;
    if (bare) {
      flush();
      parts.push({ name: bare, op: undefined, arg: [] });
      i += 1 + bare.length;
      continue;
    }
    literal += c;
    i++;
  }
  if (inBraces) throw new InterpolationError(`unclosed \${ in: ${text.slice(0, 80)}`);
  flush();
  return { parts, end: i };
}

function evaluate(parts: Part[], vars: Record<string, string | undefined>): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    const { name, op } = part;
    const arg = () => evaluate(part.arg, vars);
    const value = vars[name];
    const set = value !== undefined;
    const setAndNonEmpty = set && value !== '';
    switch (op) {
      case undefined:
        out += value ?? '';
        break;
      case ':-':
        out += setAndNonEmpty ? value : arg();
        break;
      case '-':
        out += set ? value : arg();
        break;
      case ':?':
      case '?':
        if (op === ':?' ? !setAndNonEmpty : !set)
          throw new InterpolationError(`${name}: ${arg() || 'required'}`);
        out += value;
        break;
      case ':+':
        out += setAndNonEmpty ? arg() : '';
        break;
      default:
        out += set ? arg() : '';
    }
  }
  return out;
}

export function interpolate(text: string, vars: Record<string, string | undefined>): string {
  return evaluate(parse(text, 0, false).parts, vars);
}

/** Every string value of a parsed YAML document interpolated (keys are left as they are). */
export function interpolateValues<T>(value: T, vars: Record<string, string | undefined>): T {
  if (typeof value === 'string') return interpolate(value, vars) as T;
  if (Array.isArray(value)) return value.map((v) => interpolateValues(v, vars)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateValues(v, vars)])) as T;
  return value;
}

/** The variables a text names in `${...}` or `$NAME` (nested ones too), and which it requires (`:?`, `?`). */
export function referencedVariables(text: string): { all: Set<string>; required: Set<string> } {
  const all = new Set<string>();
  const required = new Set<string>();
  const walk = (parts: Part[]) => {
    for (const part of parts) {
      if (typeof part === 'string') continue;
      all.add(part.name);
      if (part.op === ':?' || part.op === '?') required.add(part.name);
      walk(part.arg);
    }
  };
  walk(parse(text, 0, false).parts);
  return { all, required };
}
