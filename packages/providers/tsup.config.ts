import { packageBuild } from "../../tsup.base.js";

export default packageBuild({ index: "src/index.ts", "testing/index": "src/testing/index.ts" });
