import { RunError, runToEnd } from './run-to-end';

describe('runToEnd', () => {
  it('resolves with the output of a command that exits 0', async () => {
    const out = await runToEnd(process.execPath, ['-e', 'console.log("out"); console.error("err")']);
    expect(out).toEqual({ stdout: 'out\n', stderr: 'err\n' });
  });

  it('rejects with the code and output of one that fails', async () => {
    const run = runToEnd(process.execPath, ['-e', 'console.error("broken"); process.exit(4)'], {
      what: 'failing',
    });
    await expect(run).rejects.toBeInstanceOf(RunError);
    await expect(run).rejects.toMatchObject({
      code: 4,
      stderr: 'broken\n',
      message: 'failing: exit 4\nbroken\n',
    });
  });

  it('rejects when the command cannot start', async () => {
    await expect(runToEnd('/nonexistent/command', [])).rejects.toThrow(/did not start: .*ENOENT/);
  });
});
