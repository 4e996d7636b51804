import { packageBuild } from "../../tsup.base.js";

// The PGlite helper (`@parley/postgres/pglite`) is not built: its dependencies are dev-only, so
// it is exported under the `source` condition alone, for this repository's tests and eval.
export default packageBuild({ index: "src/index.ts" });
