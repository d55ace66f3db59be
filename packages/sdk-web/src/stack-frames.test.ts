import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseStack } from './stack-frames';

describe('parseStack', () => {
  it('reads a real V8 stack (the engine Chromium runs) top first, with 1-based lines and columns', () => {
    function addToCart(): never {
      throw new TypeError('price is not a number: check the @ sign');
    }
    let stack = '';
    try {
      [1].map(() => addToCart());
    } catch (err) {
      stack = (err as Error).stack!;
    }
    const frames = parseStack(stack);
    // Where the throw is in this file (jest maps the stack back to the source).
    const source = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
    const line = source.findIndex((text) => text.includes("throw new TypeError('price")) + 1;
    expect(frames[0]).toEqual({
      function: 'addToCart',
      file: fileURLToPath(import.meta.url),
      line,
      // V8 names where the error was made.
      column: source[line - 1]!.indexOf('new TypeError') + 1,
      // A path is no script URL: Chromium's frames name URLs.
      in_app: false,
    });
    // The message line is no frame, though it holds an "@"; the builtin map is one.
    expect(frames).toContainEqual({ function: 'Array.map', file: '<anonymous>', in_app: false });
    expect(frames.every((f) => !f.function.includes('price'))).toBe(true);
  });

  it('Chromium: named, anonymous, async, constructor, builtin and eval frames; URLs are the app', () => {
    const stack = [
      'TypeError: Cannot read properties of undefined (reading "total")',
      '    at Cart.add (https://shop.example.com/assets/app.min.js:1:2345)',
      '    at https://shop.example.com/assets/app.min.js:1:99',
      '    at async checkout (https://shop.example.com/assets/app.min.js?v=3:2:10)',
      '    at new Order (https://cdn.example.net/node_modules/lib/index.js:10:5)',
      '    at Array.forEach (<anonymous>)',
      '    at eval (eval at run (https://shop.example.com/a.js:3:5), <anonymous>:1:1)',
      '    at chrome-extension://abcdef/content.js:4:2',
    ].join('\n');
    expect(parseStack(stack)).toEqual([
      {
        function: 'Cart.add',
        file: 'https://shop.example.com/assets/app.min.js',
        line: 1,
        column: 2345,
        in_app: true,
      },
      { function: '', file: 'https://shop.example.com/assets/app.min.js', line: 1, column: 99, in_app: true },
      {
        function: 'checkout',
        file: 'https://shop.example.com/assets/app.min.js?v=3',
        line: 2,
        column: 10,
        in_app: true,
      },
      {
        function: 'new Order',
        file: 'https://cdn.example.net/node_modules/lib/index.js',
        line: 10,
        column: 5,
        in_app: false,
      },
      { function: 'Array.forEach', file: '<anonymous>', in_app: false },
      {
        function: 'eval',
        file: 'eval at run (https://shop.example.com/a.js:3:5), <anonymous>',
        line: 1,
        column: 1,
        in_app: false,
      },
      { function: '', file: 'chrome-extension://abcdef/content.js', line: 4, column: 2, in_app: false },
    ]);
  });

  it('Firefox and Safari: name@location, anonymous and native frames', () => {
    const stack = [
      'add@https://shop.example.com/app.min.js:1:2345',
      'checkout/<@https://shop.example.com/app.min.js:2:10',
      '@https://shop.example.com/app.min.js:3:1',
      'forEach@[native code]',
      '[native code]',
      '',
    ].join('\n');
    expect(parseStack(stack)).toEqual([
      { function: 'add', file: 'https://shop.example.com/app.min.js', line: 1, column: 2345, in_app: true },
      {
        function: 'checkout/<',
        file: 'https://shop.example.com/app.min.js',
        line: 2,
        column: 10,
        in_app: true,
      },
      { function: '', file: 'https://shop.example.com/app.min.js', line: 3, column: 1, in_app: true },
      { function: 'forEach', file: '[native code]', in_app: false },
    ]);
  });

  it('keeps at most 100 frames, and nothing of a stack that has none', () => {
    const deep = Array.from({ length: 300 }, (_, i) => `    at f${i} (https://a.example/x.js:1:${i + 1})`);
    expect(parseStack(['Error: deep', ...deep].join('\n'))).toHaveLength(100);
    expect(parseStack('')).toEqual([]);
    expect(parseStack('Error: no frames at all')).toEqual([]);
  });
});
