export { allTools, catalogToolsets } from './catalog';
export { investigationGuides } from './guides';
export { FORBIDDEN_TOOL_NAMES, SPEC_TOOL_NAMES } from './spec-names';
export { catalogViews } from './views';
