import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "coverage/**", ".parley-bench/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: "readonly", console: "readonly", Buffer: "readonly", URL: "readonly", setTimeout: "readonly", clearTimeout: "readonly" },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-restricted-imports": "off",
    },
  },
  {
    // The core stays framework-agnostic: no HTTP, no SQLite, no provider SDK.
    files: ["packages/core/src/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: ["node:http", "node:https", "http", "https", "better-sqlite3", "sqlite-vec", "openai", "@anthropic-ai/sdk", "ollama", "ajv"].map(
            (name) => ({ name, message: "The core stays framework-agnostic: put this in an adapter package." }),
          ),
        },
      ],
    },
  },
  {
    // SQLite (3.53) reads a LIMIT that is a bare parameter while planning, so binding it expires
    // the statement: it is parsed and planned again at every run (docs/architecture.md, "SQL").
    files: ["packages/sqlite/src/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        ...["Literal[value=/LIMIT\\s+[?@:$]/i]", "TemplateElement[value.raw=/LIMIT\\s+[?@:$]/i]"].map((selector) => ({
          selector,
          message: "A bare parameter as LIMIT makes SQLite prepare the statement again at every run: write LIMIT CAST(? AS INTEGER).",
        })),
      ],
    },
  },
);
