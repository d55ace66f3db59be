#!/usr/bin/env node
// `pnpm svc ...` from the repo root resolves to this bin (no root script, so pnpm prints no
// banner and stdout carries only the command's output). The CLI is TypeScript: load it via tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
