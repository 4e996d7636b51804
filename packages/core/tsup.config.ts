import { packageBuild } from "../../tsup.base.js";

export default packageBuild({
  index: "src/index.ts",
  "memory/index": "src/memory/index.ts",
  "contract/index": "src/contract/index.ts",
  "vectors/index": "src/vectors/index.ts",
  "storage-rows/index": "src/storage-rows/index.ts",
}, { external: ["vitest"] });
