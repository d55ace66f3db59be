export {
  type Breadcrumb,
  breadcrumb,
  type RawFrame,
  rawFrame,
  signature,
  type SymbolicatedFrame,
  symbolicatedFrame,
} from './schemas';
export { crashTools } from './toolset';
