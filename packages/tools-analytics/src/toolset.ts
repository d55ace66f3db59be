import type { AnyTool } from '@svc/tool-kit';
import { feedbackSearch } from './feedback-search';
import { trackRecent } from './track-recent';
import { trackStats } from './track-stats';

/** Tools of this group, in SPEC.md order. Each lives in its own file. */
export const analyticsTools: readonly AnyTool[] = [trackRecent, trackStats, feedbackSearch];
