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

  it('lists the variables a text names and those it requires', () => {
    const { all, required } = referencedVariables('${A:?x} $B ${C:-d} $$D');
    expect([...all].sort()).toEqual(['A', 'B', 'C']);
    expect([...required]).toEqual(['A']);
  });
});
