export {
  listViewResources,
  readViewResource,
  type ToolViewMeta,
  toolViewMetas,
  VIEW_RESOURCE_META,
  type ViewResource,
} from './resources';
export { VIEW_MIME_TYPE, VIEW_NAMES, VIEW_SIZE_BUDGET_BYTES, VIEWS, type ViewName, viewUri } from './views';
