import { defineConfig, type Options } from "tsup";

/** The one build configuration every package shares: ESM, declarations, Node 20. */
export function packageBuild(entry: Record<string, string>, overrides: Options = {}) {
  return defineConfig({
    entry,
    format: ["esm"],
    // tsup's declaration build passes `baseUrl`, which TypeScript 6 deprecates.
    dts: { compilerOptions: { ignoreDeprecations: "6.0" } },
    clean: true,
    sourcemap: true,
    target: "node20",
    splitting: true,
    treeshake: true,
    ...overrides,
  });
}
