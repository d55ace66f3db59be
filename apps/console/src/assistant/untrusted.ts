// A tool's answer is data from the application: a crash message or a log line may say "ignore
// your instructions". The model gets each answer inside one labelled envelope that the system
// prompt tells it to read as data only, and nothing in the answer can close the envelope early.

const OPEN = '<tool_result';
const CLOSE = '</tool_result>';

/** Defuses anything in the text that looks like the envelope's own tags. */
function defused(text: string): string {
  return text.replace(/<(\/?)(tool_result)/gi, '<$1$2_');
}

/** The answer as the model reads it: labelled untrusted, with the tool and call it came from. */
export function asUntrustedData(tool: string, callNumber: number, text: string): string {
  return `${OPEN} call="${callNumber}" tool="${tool}" trust="untrusted-data">\n${defused(text)}\n${CLOSE}`;
}
