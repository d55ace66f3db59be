export { TRICKY_MESSAGES } from './catalog';
export {
  type DemoOptions,
  type DemoProject,
  generateDemoProject,
  iterateDemoBatches,
  userCount,
} from './generate';
export { createRandom, deriveSeed, mulberry32, type Random } from './random';
export type {
  DemoBatch,
  DemoBreadcrumb,
  DemoCrash,
  DemoFrame,
  DemoLog,
  DemoSession,
  DemoUser,
  LogLevel,
  Platform,
} from './records';
