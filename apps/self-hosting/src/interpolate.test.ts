// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are compose files' ${VAR} syntax, not templates.
import { InterpolationError, interpolate, referencedVariables } from './interpolate';

describe('interpolate (Compose specification semantics)', () => {
  const vars = { SET: 'value', EMPTY: '' };

  it('substitutes ${VAR} and $VAR, and $$ is a literal $', () => {
    expect(interpolate('a ${SET} $SET $$SET ${UNSET}.', vars)).toBe('a value value $SET .');
  });

  it('tells unset from empty: :- and - , :+ and +', () => {
    expect(interpolate('${EMPTY:-d}|${EMPTY-d}|${UNSET-d}|${SET:-d}', vars)).toBe('d||d|value');
    expect(interpolate('${EMPTY:+x}|${EMPTY+x}|${UNSET+x}|${SET:+x}', vars)).toBe('|x||x');
  });

  it('refuses a required variable with its message: :? also when empty, ? only when unset', () => {
    expect(() => interpolate('${EMPTY:?set it in .env}', vars)).toThrow(
      new InterpolationError('EMPTY: set it in .env'),
    );
    expect(interpolate('${EMPTY?x}', vars)).toBe('');
    expect(() => interpolate('${UNSET?}', vars)).toThrow(InterpolationError);
    expect(interpolate('${SET:?x}', vars)).toBe('value');
  });

  it('nests: the text after an operator is interpolated, and only when it is used', () => {
    const url = 'http://localhost:${PORT:-8094}';
    expect(interpolate(`\${URL:-${url}}`, vars)).toBe('http://localhost:8094');
    expect(interpolate(`\${URL:-${url}}`, { ...vars, PORT: '9000' })).toBe('http://localhost:9000');
    expect(interpolate(`\${URL:-${url}}`, { URL: 'https://console.example.com', PORT: '9000' })).toBe(
      'https://console.example.com',
    );
    expect(interpolate('${SET:-${UNSET:?never evaluated}}', vars)).toBe('value');
    expect(() => interpolate('${EMPTY:?set ${SET}}', vars)).toThrow(
      new InterpolationError('EMPTY: set value'),
    );
    expect(interpolate('${SET:+[${SET}]}|${EMPTY:-$$literal}', vars)).toBe('[value]|$literal');
  });

  it('refuses what Compose refuses: a ${ without a name, an unclosed ${', () => {
    expect(() => interpolate('${1}', vars)).toThrow(InterpolationError);
    expect(() => interpolate('${SET:-${UNSET}', vars)).toThrow(/unclosed/);
    expect(() => interpolate('${SET x}', vars)).toThrow(InterpolationError);
    // A lone $ stays as it is.
    expect(interpolate('cost $ 5, $1', vars)).toBe('cost $ 5, $1');
  });

  it('lists the variables a text names and those it requires, nested ones too', () => {
    const { all, required } = referencedVariables('${A:?x} $B ${C:-d} $$D ${E:-${F:?y}}');
    expect([...all].sort()).toEqual(['A', 'B', 'C', 'E', 'F']);
    expect([...required].sort()).toEqual(['A', 'F']);
  });
});
