export { type ConsoleDeps, createConsoleApp } from './app';
export { type ConsoleConfig, loadConsoleConfig } from './config';
export { wireConsole } from './wiring';
