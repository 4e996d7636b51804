import { packageBuild } from "../../tsup.base.js";

// PGlite (dev dependencies, for tests and the eval) stays outside the bundle: it loads its
// WebAssembly and extension files from its own package folder.
export default packageBuild({ index: "src/index.ts", "pglite-server": "src/pglite-server.ts" }, { external: [/^@electric-sql\//] });
