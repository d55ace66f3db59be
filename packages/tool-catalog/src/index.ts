export { allTools } from './catalog';
export { FORBIDDEN_TOOL_NAMES, SPEC_TOOL_NAMES } from './spec-names';
export { catalogViews } from './views';
