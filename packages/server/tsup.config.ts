import { packageBuild } from "../../tsup.base.js";

export default packageBuild({ index: "src/index.ts", cli: "src/cli.ts" });
