import type { AnyTool } from '@svc/tool-kit';

/** The crash and symbol tools, in SPEC.md order. Each lives in its own file. */
export const crashTools: readonly AnyTool[] = [];
