export { loadStandaloneConfig, type StandaloneConfig } from './config';
export { type RunningStack, startStack } from './stack';
