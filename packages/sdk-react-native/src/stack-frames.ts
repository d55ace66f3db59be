import type { CrashFrame } from './records';

// Stack traces as the engines an app runs on write them, top of the stack first:
//   Hermes and V8:   "    at onPress (address at index.android.bundle:1:2345)"
//                    "    at Object.onPress (/app/src/cart.js:12:5)", "    at /app/x.js:3:9"
//                    "    at apply (native)"
//   JavaScriptCore:  "onPress@index.ios.bundle:1:2345", "[native code]"

const MAX_FRAMES = 512;
const MAX_TEXT = 1024;
// "file:line:column" at the end of a location, the line and column optional.
const LOCATION = /^(.*?)(?::(\d+))?(?::(\d+))?$/;
const V8_LINE = /^at (?:(.+?) \((.*)\)|(.+))$/;
const JSC_LINE = /^(.*?)@(.*:\d+)$/;

/** Frames that are not the app's own code: the engine's, React Native's and libraries'. */
function inApp(file: string): boolean {
  return !(
    file === '' ||
    file === 'native' ||
    file === '[native code]' ||
    file.startsWith('node:') ||
    file.includes('InternalBytecode') ||
    file.includes('/node_modules/')
  );
}

function frameOf(fn: string, location: string): CrashFrame {
  // Hermes release builds name the bytecode offset: "address at index.android.bundle:1:2345".
  const where = location.replace(/^address at /, '');
  const [, file = '', line, column] = LOCATION.exec(where) ?? [];
  const frame: CrashFrame = {
    function: (fn === '<anonymous>' ? '' : fn).slice(0, MAX_TEXT),
    file: file.slice(0, MAX_TEXT),
    in_app: inApp(file),
  };
  if (line !== undefined) frame.line = Number(line);
  if (column !== undefined) frame.column = Number(column);
  return frame;
}

/** The frames of `stack`, top first, at most 512; lines that are no frame (the message) are skipped. */
export function parseStack(stack: string | undefined): CrashFrame[] {
  const lines = (stack ?? '').split('\n').map((line) => line.trim());
  // V8 and Hermes start with the message, which may hold an "@": read only their "at" lines.
  const v8 = lines.some((line) => line.startsWith('at '));
  const frames: CrashFrame[] = [];
  for (const text of lines) {
    if (frames.length >= MAX_FRAMES) break;
    if (v8) {
      const at = V8_LINE.exec(text);
      // "at fn (location)" or "at location" (an anonymous function); "at async fn (...)" too.
      if (at) frames.push(frameOf((at[1] ?? '').replace(/^async /, ''), at[2] ?? at[3] ?? ''));
    } else if (text === '[native code]') frames.push(frameOf('', text));
    else {
      const jsc = JSC_LINE.exec(text);
      if (jsc) frames.push(frameOf(jsc[1] ?? '', jsc[2] ?? ''));
    }
  }
  return frames;
}

/** `error_type` and `message` of anything thrown: an Error's name and message, else its text. */
export function describeThrown(thrown: unknown): { type: string; message: string; stack?: string } {
  if (thrown instanceof Error || (typeof thrown === 'object' && thrown !== null && 'message' in thrown)) {
    const e = thrown as { name?: unknown; message?: unknown; stack?: unknown };
    const described: { type: string; message: string; stack?: string } = {
      type: typeof e.name === 'string' && e.name ? e.name.slice(0, 500) : 'Error',
      message: String(e.message ?? '').slice(0, 16384),
    };
    if (typeof e.stack === 'string') described.stack = e.stack;
    return described;
  }
  let message: string;
  try {
    message = typeof thrown === 'string' ? thrown : (JSON.stringify(thrown) ?? String(thrown));
  } catch {
    message = String(thrown);
  }
  return { type: 'Error', message: message.slice(0, 16384) };
}
