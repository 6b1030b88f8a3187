// Validate glTF files with the Khronos glTF validator; print one JSON line per file:
// {"file", "errors", "warnings", "infos", "hints", "messages": [...]}.
//     node validate.js FILE...
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

async function validate(file) {
  const data = new Uint8Array(fs.readFileSync(file));
  const report = await validator.validateBytes(data, {
    uri: path.basename(file),
    maxIssues: 100,
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        fs.readFile(path.join(path.dirname(file), decodeURIComponent(uri)), (err, d) =>
          err ? reject(err.toString()) : resolve(new Uint8Array(d)));
      }),
  });
  const i = report.issues;
  return {
    file,
    errors: i.numErrors,
    warnings: i.numWarnings,
    infos: i.numInfos,
    hints: i.numHints,
    messages: i.messages.map((m) => `${m.severity} ${m.code} ${m.pointer || ''}: ${m.message}`),
  };
}

(async () => {
  let bad = 0;
  for (const f of process.argv.slice(2)) {
    const r = await validate(f);
    if (r.errors || r.warnings) bad++;
    console.log(JSON.stringify(r));
  }
  process.exit(bad ? 1 : 0);
})().catch((e) => {
  console.error(String(e));
  process.exit(2);
});
