export { createConsoleApp } from './app';
export { type ConsoleConfig, loadConsoleConfig } from './config';
export type { ConsoleDeps } from './console-deps';
export { wireConsole } from './wiring';
