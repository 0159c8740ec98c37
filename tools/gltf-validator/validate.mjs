// Validates every .gltf/.glb under the given folders with the Khronos validator and prints
// one JSON line per file: {file, errors, warnings}. Exit code 1 when any file has errors.
import fs from 'node:fs';
import path from 'node:path';
import validator from 'gltf-validator';

const files = [];
const walk = (dir) => {
  for (const name of fs.readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (fs.statSync(full).isDirectory()) walk(full);
    else if (/\.(gltf|glb)$/.test(name)) files.push(full);
  }
};
process.argv.slice(2).forEach(walk);

let failed = 0;
for (const file of files) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const report = await validator.validateBytes(bytes, {
    uri: file,
    externalResourceFunction: (uri) =>
      Promise.resolve(new Uint8Array(fs.readFileSync(path.join(path.dirname(file), decodeURIComponent(uri))))),
  });
  const errors = report.issues.numErrors;
  if (errors > 0) failed++;
  console.log(JSON.stringify({ file, errors, warnings: report.issues.numWarnings,
    messages: report.issues.messages.filter((m) => m.severity === 0).slice(0, 5) }));
}
console.log(`${files.length} files, ${failed} with errors`);
process.exit(failed > 0 ? 1 : 0);
