// Test support for other packages: a real PostgreSQL server to run the `pg` path against.
export {
  hasPostgresBinaries,
  PG_BIN,
  startThrowawayCluster,
  type ThrowawayCluster,
} from './throwaway-cluster';
