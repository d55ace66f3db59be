import { describeThrown, parseStack } from './stack-frames';

describe('parseStack', () => {
  it('reads Hermes release frames (bytecode offsets), native frames and the message line', () => {
    const stack = [
      "TypeError: Cannot read property 'total' of undefined (at cart@example.com)",
      '    at renderTotal (address at index.android.bundle:1:284711)',
      '    at anonymous (address at index.android.bundle:1:90122)',
      '    at apply (native)',
      '    at callFunction (address at InternalBytecode.js:1:1234)',
    ].join('\n');
    expect(parseStack(stack)).toEqual([
      { function: 'renderTotal', file: 'index.android.bundle', line: 1, column: 284711, in_app: true },
      { function: 'anonymous', file: 'index.android.bundle', line: 1, column: 90122, in_app: true },
      { function: 'apply', file: 'native', in_app: false },
      { function: 'callFunction', file: 'InternalBytecode.js', line: 1, column: 1234, in_app: false },
    ]);
  });

  it('reads V8 and Hermes development frames, anonymous and async ones, node_modules as not in app', () => {
    const stack = [
      'Error: boom',
      '    at Object.onPress (http://10.0.2.2:8081/index.bundle?platform=android&dev=true:120:33)',
      '    at async loadCart (/app/src/cart.ts:12:5)',
      '    at /app/src/index.ts:3:9',
      '    at dispatch (/app/node_modules/react/cjs/react.js:77:1)',
    ].join('\n');
    expect(parseStack(stack)).toEqual([
      {
        function: 'Object.onPress',
        file: 'http://10.0.2.2:8081/index.bundle?platform=android&dev=true',
        line: 120,
        column: 33,
        in_app: true,
      },
      { function: 'loadCart', file: '/app/src/cart.ts', line: 12, column: 5, in_app: true },
      { function: '', file: '/app/src/index.ts', line: 3, column: 9, in_app: true },
      {
        function: 'dispatch',
        file: '/app/node_modules/react/cjs/react.js',
        line: 77,
        column: 1,
        in_app: false,
      },
    ]);
  });

  it('reads JavaScriptCore frames', () => {
    expect(parseStack('renderTotal@index.ios.bundle:1:5012\n@index.ios.bundle:1:700\n[native code]')).toEqual(
      [
        { function: 'renderTotal', file: 'index.ios.bundle', line: 1, column: 5012, in_app: true },
        { function: '', file: 'index.ios.bundle', line: 1, column: 700, in_app: true },
        { function: '', file: '[native code]', in_app: false },
      ],
    );
  });

  it('keeps at most 512 frames, and reads a real Error of this runtime top first', () => {
    const deep = [
      'Error: deep',
      ...Array.from({ length: 600 }, (_, i) => `    at f${i} (/app/x.js:${i + 1}:1)`),
    ];
    const frames = parseStack(deep.join('\n'));
    expect(frames).toHaveLength(512);
    expect(frames[511]!.function).toBe('f511');
    function throwingFunction(): Error {
      return new Error('here');
    }
    expect(parseStack(throwingFunction().stack)[0]).toMatchObject({
      function: 'throwingFunction',
      in_app: true,
    });
  });
});

describe('describeThrown', () => {
  it('takes an Error by name and message, anything else by its text', () => {
    expect(describeThrown(new RangeError('out'))).toMatchObject({ type: 'RangeError', message: 'out' });
    expect(describeThrown('plain text')).toEqual({ type: 'Error', message: 'plain text' });
    expect(describeThrown({ code: 7 })).toEqual({ type: 'Error', message: '{"code":7}' });
    expect(describeThrown(undefined)).toEqual({ type: 'Error', message: 'undefined' });
  });
});
