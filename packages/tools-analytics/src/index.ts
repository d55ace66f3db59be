export { analyticsTools } from './toolset';
