import { spawn } from 'node:child_process';
import { idleCores, machineCpuTicks, processCpuUs, processTreeCpuUs } from './proc-cpu';

describe('CPU readings from /proc', () => {
  it('tells the cores left idle between two readings from the idle share of the ticks', () => {
    const before = { idle: 1000, total: 4000, cores: 2 };
    // 300 of 400 ticks idle: three quarters of two cores.
    expect(idleCores(before, { idle: 1300, total: 4400, cores: 2 })).toBe((300 / 400) * 2);
    expect(idleCores(before, { idle: 1000, total: 4400, cores: 2 })).toBe(0);
    expect(idleCores(before, before)).toBeNaN();
  });

  it("reads this process's CPU and the machine's, and NaN for a process that is not there", () => {
    expect(processCpuUs(process.pid)).toBeGreaterThan(0);
    expect(processCpuUs(2 ** 30)).toBeNaN();
    const machine = machineCpuTicks();
    expect(machine.cores).toBeGreaterThan(0);
    expect(machine.total).toBeGreaterThanOrEqual(machine.idle);
  });

  it("counts a server's children with it: a child's CPU, live and after it ended", async () => {
    // A child that spins for ~300 ms of CPU, then one more that has ended and was waited for.
    const spin = 'while (process.cpuUsage().user < 300_000);';
    const before = processTreeCpuUs(process.pid);
    const child = spawn(process.execPath, ['-e', `${spin} setTimeout(() => {}, 60_000)`]);
    const own = () => processCpuUs(child.pid!);
    while (!(own() >= 200_000)) await new Promise((r) => setTimeout(r, 20));
    // Live: its CPU is in the tree's, beside this process's own.
    expect(processTreeCpuUs(process.pid) - before).toBeGreaterThanOrEqual(own());
    const live = processTreeCpuUs(process.pid);
    child.kill();
    await new Promise((r) => child.once('exit', r));
    // Ended and waited for: the kernel moved its time into ours (cutime), nothing lost.
    expect(processTreeCpuUs(process.pid)).toBeGreaterThanOrEqual(live);
    expect(processTreeCpuUs(2 ** 30)).toBeNaN();
  });
});
