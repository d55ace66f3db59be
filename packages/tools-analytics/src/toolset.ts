import type { AnyTool } from '@svc/tool-kit';

/** Tools of this group, in SPEC.md order. Each lives in its own file. */
export const analyticsTools: readonly AnyTool[] = [];
