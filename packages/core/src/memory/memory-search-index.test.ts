import { runSearchIndexContract } from "../contract/search-index-contract.js";
import { createMemorySearchIndex } from "./memory-search-index.js";

runSearchIndexContract({ create: () => createMemorySearchIndex() });
