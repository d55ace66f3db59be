export { createStdioApp, type StdioAppDeps } from './app';
export { loadStdioConfig, type StdioConfig, stdioEnvSchema } from './config';
export { type WiredStdio, wireStdio } from './wiring';
