import { packageBuild } from "../../tsup.base.js";

export default packageBuild({ index: "src/index.ts", "read-document-worker": "src/read-document-worker.ts" });
