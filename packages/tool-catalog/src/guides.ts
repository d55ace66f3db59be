import type { InvestigationGuide } from '@svc/tool-kit';
import { crashRegressionGuide } from './guides/crash-regression';
import { experimentGuide } from './guides/experiment-judgement';
import { slowEndpointGuide } from './guides/slow-endpoint';
import { userSessionGuide } from './guides/user-session';

/** The investigation guides served as MCP prompts, each naming catalog tools in order. */
export const investigationGuides: readonly InvestigationGuide[] = [
  crashRegressionGuide,
  slowEndpointGuide,
  experimentGuide,
  userSessionGuide,
];
