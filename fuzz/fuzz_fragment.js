// Fuzz target for the report planner's reading of the address's fragment (src/output/report_planner.js):
// readFragment, and positive() and decimalQ(), through which every value it keeps passes before
// the page uses it. Run under Node, for SECONDS, on fragments mutated from the seeds below:
//   node fuzz/fuzz_fragment.js SOURCE_DIR SECONDS [RUNS]
// (RUNS: stop after that many fragments, as ctest's short run does, so that it does the same
// work on any machine.)
// The invariants: nothing throws; only the planner's keys come back, each a string; positive()
// is null or a whole number above zero, decimalQ() null or a fraction with a positive
// denominator; each call on a fragment of at most 64 KiB takes under a second (a fragment is
// typed or pasted by anyone); and a fragment the page writes (fragmentOf) reads back as written.
// Exit 0 with the count of fragments tried, 1 with the first fragment that broke an invariant.
'use strict';
const fs = require('fs');
const path = require('path');

const source = fs.readFileSync(path.join(process.argv[2], 'src', 'output', 'report_planner.js'), 'utf8');
const seconds = Number(process.argv[3] || 15);
const runs = process.argv[4] === undefined ? Infinity : Number(process.argv[4]);
function extract(pattern, what) {
  const m = pattern.exec(source);
  if (!m) {
    console.error('fuzz_fragment: no ' + what + ' in src/output/report_planner.js');
    process.exit(2);
  }
  return m[0];
}
const parts = [
  extract(/\n  function gcd\(a, b\) \{[\s\S]*?\n  \}\n/, 'gcd'),
  extract(/\n  function Q\(n, d\) \{[\s\S]*?\n  \}\n/, 'Q'),
  extract(/\n  function decimalQ\(text\) \{[\s\S]*?\n  \}\n/, 'decimalQ'),
  extract(/\n  const KEYS = \[[^\]]*\];\n/, 'KEYS'),
  extract(/\n  function readFragment\(\) \{[\s\S]*?\n  \}\n/, 'readFragment'),
  extract(/\n  function fragmentOf\(choice\) \{[\s\S]*?\n  \}\n/, 'fragmentOf'),
  extract(/\n  const positive = [^\n]*\n/, 'positive'),
];
const location = { hash: '' };
const api = new Function('location', parts.join('') +
  '\nreturn { readFragment, fragmentOf, positive, decimalQ, KEYS };')(location);

const seeds = [
  'model=models%2Fqwen3.5-27b&accelerator=accelerators/nvidia-rtx-3090&gpus=1&engine=llama.cpp&weights=Q4_K&kv=q8_0&context=65536&batch=1',
  'engine=vllm&kvgib=45.32&context=32768&batch=4&weights=16500000000',
  'engine=sglang&memfrac=0.88&context=131072',
  'context=%&batch=%ZZ&model=%E0%A4%A&weights=1e9&kvgib=-1&memfrac=1.5',
  '&&==&model&=x&context=0&batch=00000000000000000001',
];
const alphabet = ['&', '=', '%', '+', '#', '/', '.', '0', '9', '1', 'e', '-', ' ', '\u0000', '\u202e', '%25', '%2F', '%00',
  'model', 'context', 'batch', 'weights', 'kvgib', 'memfrac', 'engine', 'gpus', 'kv', '__proto__', 'constructor'];
let state = 12345;
const rand = (n) => {
  state = (state * 1103515245 + 12345) & 0x7fffffff;
  return state % n;
};
function mutate(text) {
  let t = text;
  for (let i = 1 + rand(6); i > 0; i--) {
    const at = rand(t.length + 1);
    switch (rand(5)) {
      case 0: t = t.slice(0, at) + alphabet[rand(alphabet.length)] + t.slice(at); break;
      case 1: t = t.slice(0, at) + t.slice(at + 1 + rand(8)); break;
      case 2: t = t.slice(0, at) + '9'.repeat(1 + rand(4096)) + t.slice(at); break;
      case 3: t = t + '&' + seeds[rand(seeds.length)]; break;
      default: t = t.slice(0, at) + String.fromCharCode(rand(0x3000)) + t.slice(at); break;
    }
  }
  return t.length > 65536 ? t.slice(0, 65536) : t;
}
function fail(fragment, why) {
  console.error('fuzz_fragment: ' + why + '\n  fragment (JSON): ' + JSON.stringify(fragment).slice(0, 2000));
  process.exit(1);
}
function timed(fragment, what, f) {
  const start = process.hrtime.bigint();
  let out;
  try {
    out = f();
  } catch (e) {
    fail(fragment, what + ' threw ' + e);
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (ms > 1000) fail(fragment, what + ' took ' + ms.toFixed(0) + ' ms');
  return out;
}
function tryOne(fragment) {
  location.hash = '#' + fragment;
  const got = timed(fragment, 'readFragment', () => api.readFragment());
  for (const [key, value] of Object.entries(got)) {
    if (!api.KEYS.includes(key)) fail(fragment, 'a key the planner does not know: ' + key);
    if (typeof value !== 'string') fail(fragment, 'a value that is not a string for ' + key);
    const p = timed(fragment, 'positive', () => api.positive(value));
    if (p !== null && !(typeof p === 'bigint' && p > 0n)) fail(fragment, 'positive gave ' + String(p));
    const q = timed(fragment, 'decimalQ', () => api.decimalQ(value));
    if (q !== null && !(q.d > 0n && q.n >= 0n)) fail(fragment, 'decimalQ gave ' + JSON.stringify(String(q)));
  }
  if (Object.getPrototypeOf(got) !== Object.prototype) fail(fragment, 'the fragment changed the result\'s prototype');
}
function roundTrip() {
  // A choice the page holds, written by fragmentOf, reads back key for key.
  const text = (n) => alphabet[rand(alphabet.length)] + String(rand(n));
  const choice = { model: 'models/' + text(99), accelerator: text(9), gpus: String(1 + rand(8)), engine: 'vllm',
    weightBytes: null, weights: text(9), kv: text(9), context: String(1 + rand(1e6)), batch: String(1 + rand(64)),
    kvGib: 1, kvGibText: String(rand(100)) + '.5', memFraction: null };
  const fragment = api.fragmentOf(choice);
  location.hash = '#' + fragment;
  const back = api.readFragment();
  for (const key of ['model', 'accelerator', 'gpus', 'engine', 'weights', 'kv', 'context', 'batch']) {
    if (back[key] !== String(choice[key])) fail(fragment, 'fragmentOf wrote ' + key + ' that reads back as ' + back[key]);
  }
  if (back.kvgib !== choice.kvGibText) fail(fragment, 'kvgib reads back as ' + back.kvgib);
}

const end = Date.now() + seconds * 1000;
let tried = 0;
for (const s of seeds) tryOne(s);
while (Date.now() < end && tried < runs) {
  tryOne(mutate(seeds[rand(seeds.length)]));
  if (tried % 16 === 0) roundTrip();
  tried++;
}
console.log('fuzz_fragment: ' + tried + ' fragments, no invariant broken');
