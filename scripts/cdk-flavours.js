'use strict';
// Makes the `fleetform/cdktn` entry after the build of dist/: the compiled construct layer
// is copied to dist/constructs-cdktn with the cdktn binding (cdk-cdktn.js/.d.ts) in the
// place of the cdktf one (cdk.js/.d.ts), and dist/cdktn.js/.d.ts are the package root's
// entry with the construct layer's module specifier mapped to that copy. Everything else
// (domain, api, engine) is the one shared copy. The build fails when a file of either
// flavour names the other's library, so neither entry can load both.
const fs = require('node:fs');
const path = require('node:path');

// An argument names another build folder (the build writes into a fresh one first).
const dist = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'dist'));
const cdktf = path.join(dist, 'constructs');
const cdktn = path.join(dist, 'constructs-cdktn');

fs.rmSync(cdktn, { recursive: true, force: true });
fs.cpSync(cdktf, cdktn, { recursive: true });
for (const ext of ['.js', '.d.ts']) {
  const binding = path.join(cdktn, `cdk-cdktn${ext}`);
  if (!fs.existsSync(binding)) throw new Error(`${binding} is missing: the build is broken`);
  fs.copyFileSync(binding, path.join(cdktn, `cdk${ext}`));
}

/** The text with every string literal equal to `from` replaced by `to`; fails if there is none. */
function mapSpecifier(text, from, to, file) {
  let count = 0;
  const mapped = text.replace(/(["'])([^"'\n]*)\1/g, (literal, quote, value) => {
    if (value !== from) return literal;
    count += 1;
    return `${quote}${to}${quote}`;
  });
  if (count === 0) throw new Error(`${file} does not import ${from}: the build is broken`);
  return mapped;
}

for (const ext of ['.js', '.d.ts']) {
  const entry = path.join(dist, `index${ext}`);
  fs.writeFileSync(
    path.join(dist, `cdktn${ext}`),
    mapSpecifier(fs.readFileSync(entry, 'utf8'), './constructs', './constructs-cdktn', entry),
  );
}

/** Files of a tree (or one file) that import or require `library`. */
function naming(where, library) {
  const files = fs.statSync(where).isDirectory() ? fs.readdirSync(where, { recursive: true }).map((f) => path.join(where, f)) : [where];
  const pattern = new RegExp(`(require\\(|import\\(|from )\\s*["']${library}["']`);
  return files.filter(
    (f) => /\.(js|d\.ts)$/.test(f) && !/cdk-cdkt[fn]\./.test(path.basename(f)) && pattern.test(fs.readFileSync(f, 'utf8')),
  );
}
const crossed = [
  ...naming(cdktn, 'cdktf'),
  ...naming(path.join(dist, 'cdktn.js'), 'cdktf'),
  ...naming(path.join(dist, 'cdktn.d.ts'), 'cdktf'),
  ...naming(cdktf, 'cdktn'),
  ...naming(path.join(dist, 'index.js'), 'cdktn'),
  ...naming(path.join(dist, 'index.d.ts'), 'cdktn'),
];
if (crossed.length > 0) throw new Error(`these files name the other flavour's library: ${crossed.join(', ')}`);
