import { componentsOf, gradeOf, scoreOf } from './release-score';

describe('release score', () => {
  it('clamps each component to 0..1 at the documented bounds', () => {
    expect(componentsOf({ crashFreeRate: 0.9, anrRate: 0.02, startupP95Ms: 4000, fpsAvg: 30 })).toEqual({
      crash_free: 0,
      anr: 0,
      startup: 0,
      fps: 0,
    });
    expect(componentsOf({ crashFreeRate: 0.995, anrRate: 0, startupP95Ms: 1000, fpsAvg: 58 })).toEqual({
      crash_free: 1,
      anr: 1,
      startup: 1,
      fps: 1,
    });
    expect(componentsOf({ crashFreeRate: 0.5, anrRate: 0.5, startupP95Ms: 9000, fpsAvg: 120 })).toEqual({
      crash_free: 0,
      anr: 0,
      startup: 0,
      fps: 1,
    });
  });

  it('shares a missing component weight out over the present ones, and has no score without any', () => {
    expect(scoreOf({ crash_free: 1, anr: 0, startup: null, fps: null })).toBeCloseTo((100 * 0.5) / 0.7, 10);
    expect(scoreOf({ crash_free: null, anr: null, startup: 0.5, fps: 0.5 })).toBe(50);
    expect(scoreOf({ crash_free: null, anr: null, startup: null, fps: null })).toBeNull();
  });

  it('grades at the boundaries: A >= 90, B >= 80, C >= 70, D >= 60, else F', () => {
    expect([100, 90, 89.999, 80, 79.9, 70, 69.99, 60, 59.99, 0].map(gradeOf)).toEqual([
      'A',
      'A',
      'B',
      'B',
      'C',
      'C',
      'D',
      'D',
      'F',
      'F',
    ]);
    expect(gradeOf(null)).toBeNull();
  });
});
