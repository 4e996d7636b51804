// The in-process vector arm shared by the adapters without a vector extension (SQLite, and
// PostgreSQL without pgvector): int8 columns scored by a SIMD kernel, then exact re-scoring.
export { createInt8Columns, ROW_STEP, type Int8Columns } from "./int8-columns.js";
export {
  appendVector,
  candidateIds,
  cosineSimilarity,
  createVectorTable,
  createVectorTables,
  kthLargest,
  nearestByCosine,
  refreshKind,
  removeMissing,
  tableBytes,
  type VectorState,
  type VectorTable,
} from "./vector-table.js";
