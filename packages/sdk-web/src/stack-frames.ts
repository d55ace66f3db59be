/** A frame as the core's crash ingest takes it; web frames are symbolicated by file, line, column. */
export interface CrashFrame {
  function: string;
  /** The script's URL: its last segment selects the uploaded source map. */
  file: string;
  line?: number;
  column?: number;
  in_app: boolean;
}

// Stack traces as browsers write them, top of the stack first, lines and columns 1-based:
//   Chromium (V8):    "    at Cart.add (https://shop.example/app.min.js:1:2345)",
//                     "    at https://shop.example/app.min.js:1:99", "    at Array.map (<anonymous>)"
//   Firefox, Safari:  "add@https://shop.example/app.min.js:1:2345", "[native code]"
const V8_FRAME = /^\s*at (?:(.+?) \()?(.+?)(?::(\d+):(\d+))?\)?$/;
const GECKO_FRAME = /^\s*(.*?)@(.+?)(?::(\d+):(\d+))?$/;
// Script URLs are the page's code; extensions, eval'd code and the engine's builtins are not.
const APP_FILE = /^(https?|file):/;
const MAX_FRAMES = 100;
const MAX_TEXT = 1024;

/** The frames of `stack`, top first, at most 100; lines that are no frame (the message) are skipped. */
export function parseStack(stack: string): CrashFrame[] {
  const lines = stack.split('\n');
  // V8 starts with the message, which may hold an "@": read only its "at" lines.
  const v8 = lines.some((line) => /^\s*at /.test(line));
  const frames: CrashFrame[] = [];
  for (const line of lines) {
    const match = (v8 ? V8_FRAME : GECKO_FRAME).exec(line);
    if (!match || frames.length >= MAX_FRAMES) continue;
    const [, name = '', file = '', row, column] = match;
    frames.push({
      function: name.replace(/^async /, '').slice(0, MAX_TEXT),
      file: file.slice(0, MAX_TEXT),
      ...(row ? { line: +row, column: +(column as string) } : {}),
      in_app: APP_FILE.test(file) && !file.includes('/node_modules/'),
    });
  }
  return frames;
}
