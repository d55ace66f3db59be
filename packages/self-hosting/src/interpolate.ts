// Compose's variable interpolation (the Compose specification, "Interpolation"): `$$` is a literal
// `$`; `${VAR}` and `$VAR`; `${VAR:-default}` (unset or empty) and `${VAR-default}` (unset);
// `${VAR:?message}` / `${VAR?message}` refuse the file; `${VAR:+other}` / `${VAR+other}` replace a
// set value. Nested expressions in defaults are not supported (docker-compose.yml uses none).

export class InterpolationError extends Error {
  override readonly name = 'InterpolationError';
}

const EXPRESSION = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

export function interpolate(text: string, vars: Record<string, string | undefined>): string {
  return text.replace(EXPRESSION, (whole, braced?: string, op?: string, arg?: string, bare?: string) => {
    if (whole === '$$') return '$';
    const name = (braced ?? bare)!;
    const value = vars[name];
    const set = value !== undefined;
    const setAndNonEmpty = set && value !== '';
    switch (op) {
      case undefined:
        return value ?? '';
      case ':-':
        return setAndNonEmpty ? value : arg!;
      case '-':
        return set ? value : arg!;
      case ':?':
        if (!setAndNonEmpty) throw new InterpolationError(`${name}: ${arg || 'required'}`);
        return value;
      case '?':
        if (!set) throw new InterpolationError(`${name}: ${arg || 'required'}`);
        return value;
      case ':+':
        return setAndNonEmpty ? arg! : '';
      default:
        return set ? arg! : '';
    }
  });
}

/** Every string value of a parsed YAML document interpolated (keys are left as they are). */
export function interpolateValues<T>(value: T, vars: Record<string, string | undefined>): T {
  if (typeof value === 'string') return interpolate(value, vars) as T;
  if (Array.isArray(value)) return value.map((v) => interpolateValues(v, vars)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateValues(v, vars)])) as T;
  return value;
}

/** The variables a text names in `${...}` or `$NAME`, and which of them it requires (`:?`, `?`). */
export function referencedVariables(text: string): { all: Set<string>; required: Set<string> } {
  const all = new Set<string>();
  const required = new Set<string>();
  for (const m of text.matchAll(EXPRESSION)) {
    const name = m[1] ?? m[4];
    if (!name) continue;
    all.add(name);
    if (m[2] === ':?' || m[2] === '?') required.add(name);
  }
  return { all, required };
}
