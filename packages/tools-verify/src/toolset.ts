import type { AnyTool } from '@svc/tool-kit';
import { verifyRun } from './verify-run';
import { verifyRunSession } from './verify-run-session';

/** Tools of this group, in catalog order. Capability vis_ai_verifier, served by copilot. */
export const verifyTools: readonly AnyTool[] = [verifyRun, verifyRunSession];
