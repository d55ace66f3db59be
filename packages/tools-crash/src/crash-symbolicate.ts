import { defineTool, identifier } from '@svc/tool-kit';
import { z } from 'zod';

export const crashSymbolicateInput = z.strictObject({
  event_id: identifier('crash event id'),
});
export const crashSymbolicateOutput = z.strictObject({
  event_id: z.string(),
  accepted: z
    .boolean()
    .describe('True: queued, crash.get shows the result once done. False: no crash with this event id.'),
});

export const crashSymbolicate = defineTool({
  name: 'crash.symbolicate',
  title: 'Symbolicate a crash',
  description:
    "(Re)runs symbolication of one crash's frames in the background against the project's uploaded " +
    'debug files and returns at once. Returns {event_id, accepted}; accepted is false when the project ' +
    'has no crash with that event id. Re-read the crash with crash.get: symbolicated frames appear beside ' +
    'the raw ones, each saying whether it mapped and why not. Use symbol.list first to see the files.',
  input: crashSymbolicateInput,
  output: crashSymbolicateOutput,
  capability: 'base',
  backend: 'core',
});
