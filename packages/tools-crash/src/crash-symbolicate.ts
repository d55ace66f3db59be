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
    "(Re)runs symbolication of one crash's frames in the background with the project's debug files " +
    'and answers at once. Returns {event_id, accepted}; accepted is false for an unknown event id. ' +
    'Then re-read crash.get: symbolicated frames appear beside the raw ones, each saying whether it ' +
    'mapped and why not. Check symbol.list first.',
  input: crashSymbolicateInput,
  output: crashSymbolicateOutput,
  capability: 'base',
  backend: 'core',
  example: { event_id: 'evt_7f2c9a1b' },
});
