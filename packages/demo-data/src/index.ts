export { TRICKY_MESSAGES } from './catalog';
export {
  CART_FIX_RELEASE,
  CRASH_ISSUES,
  type CrashIssue,
  RECURRING_QUIET,
  RISK_SDK_RELEASE,
  type Runtime,
  type SourceFrame,
} from './crash-issues';
export { crashChance, issueEligible, sdkSignature } from './crashes';
export { CROWD_ANALYTICS_SHARE, CROWD_PER_USER } from './crowd';
export { generateDemoDebugFiles } from './debug-files';
export { CAMPAIGNS } from './events';
export {
  assignVariant,
  CHECKOUT_EXPERIMENT,
  DEMO_EXPERIMENTS,
  LAUNCH_EXPERIMENT,
  PURCHASE_LIFT,
} from './experiments';
export { APP_BUNDLE_URL, NATIVE_MODULES, VENDOR_BUNDLE_URL } from './frame-layout';
export {
  type DemoOptions,
  type DemoProject,
  generateDemoProject,
  iterateDemoBatches,
  userCount,
} from './generate';
export { LEAK_SHARE, LEAKY_RELEASE } from './performance';
export { createRandom, deriveSeed, mulberry32, type Random } from './random';
export { type DemoRecall, type DemoRecallFile, generateDemoRecall, RECALL_DEMO_USERS } from './recall-files';
export type {
  DemoBatch,
  DemoBreadcrumb,
  DemoCrash,
  DemoDebugFile,
  DemoEvent,
  DemoExperiment,
  DemoFeedback,
  DemoFrame,
  DemoLog,
  DemoMetric,
  DemoSession,
  DemoSpan,
  DemoUser,
  LogLevel,
  Platform,
} from './records';
export { SLOW_CHECKOUT, SLOW_START_RELEASE } from './session-story';
export {
  CAMPAIGN_INTENT,
  FUNNEL_STEPS,
  STEP_RATES,
  WEEKDAY_FACTOR,
} from './shop-funnel';
export { SERVICE_SAMPLE_RATES, SPAN_DAYS } from './traces';
export { compareVersions } from './versions';
