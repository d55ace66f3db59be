import { idleCores, machineCpuTicks, processCpuUs } from './proc-cpu';

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
});
