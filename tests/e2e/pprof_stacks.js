// Reads a gzipped pprof file with the npm package pprof-format (an independent decoder) and
// prints "root;...;leaf COUNT" per distinct stack (first sample type), then "total N".
// usage: NODE_PATH=.../node_modules node pprof_stacks.js FILE
const fs = require('fs');
const zlib = require('zlib');
const { Profile } = require('pprof-format');
const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(process.argv[2])));
const str = (i) => p.stringTable.strings[Number(i)];
const funcs = new Map(p.function.map((f) => [Number(f.id), f]));
const locs = new Map(p.location.map((l) => [Number(l.id), l]));
const counts = new Map();
let total = 0;
for (const s of p.sample) {
  const names = s.locationId.map((id) => str(funcs.get(Number(locs.get(Number(id)).line[0].functionId)).systemName));
  const key = names.reverse().join(';');
  const v = Number(s.value[0]);
  total += v;
  counts.set(key, (counts.get(key) || 0) + v);
}
for (const [k, v] of counts) console.log(`${k} ${v}`);
console.log(`total ${total}`);
console.error(`sample types: ${p.sampleType.map((t) => str(t.type) + '/' + str(t.unit)).join(', ')}`);
