import { execFileSync } from 'node:child_process';
import { curlCommand, mcpToolsCall } from './tool-call-examples';

// The commands are for pasting into a shell: checked by running them in one, with `curl` a shell
// function that prints the arguments it was given (so nothing is sent anywhere).

/** The argv `sh` would give curl for this command, with SVC_TOKEN set as the person would. */
function curlArgs(command: string): string[] {
  const out = execFileSync(
    'sh',
    ['-c', `curl() { for a in "$@"; do printf '%s\\0' "$a"; done; }\n${command}`],
    {
      env: { PATH: process.env.PATH, SVC_TOKEN: 'svc_pat_mine', HOME: '/nowhere' },
      encoding: 'utf8',
    },
  );
  return out.split('\0').slice(0, -1);
}

describe('curlCommand', () => {
  it('posts the input as JSON to the tool route, with the token from $SVC_TOKEN', () => {
    const input = { search: 'it\'s $HOME `id` "quoted" \\ done', limit: 5, nested: { a: [1, null] } };
    const command = curlCommand('https://mcp.example.com', 'log.search', input);
    expect(command).toContain('Bearer $SVC_TOKEN');
    expect(curlArgs(command)).toEqual([
      '-s',
      'https://mcp.example.com/v1/tools/log.search',
      '-H',
      'Authorization: Bearer svc_pat_mine',
      '-H',
      'Content-Type: application/json',
      '-d',
      JSON.stringify(input),
    ]);
  });

  it('sends {} for an empty input', () => {
    expect(curlArgs(curlCommand('http://localhost:8092', 'crash.stats', {})).at(-1)).toBe('{}');
  });
});

describe('mcpToolsCall', () => {
  it('is the JSON-RPC tools/call request with the input as arguments', () => {
    const input = { group_by: 'level' };
    expect(JSON.parse(mcpToolsCall('log.aggregate', input))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'log.aggregate', arguments: input },
    });
  });
});
