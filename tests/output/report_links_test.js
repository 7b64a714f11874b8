// The report page's link check (safeHref in src/output/report_page.js), run under Node against the
// WHATWG URL parser that browsers implement (Node's URL): every href it keeps must resolve,
// from a page on disk, to an http(s) address or to a file on the page's own disk, and every
// hostile href below must be refused, however its scheme is hidden.
//   node report_links_test.js SOURCE_DIR
'use strict';
const fs = require('fs');
const path = require('path');

const source = fs.readFileSync(path.join(process.argv[2], 'src', 'output', 'report_page.js'), 'utf8');
const match = /\n  function safeHref\(href\) \{\n[\s\S]*?\n  \}\n/.exec(source);
if (!match) {
  console.error('FAIL: no safeHref function in src/output/report_page.js');
  process.exit(1);
}
const safeHref = new Function(match[0] + '\nreturn safeHref;')();

const page = 'file:///home/someone/records/kv-efficiency/index.html';
let failures = 0;
function check(ok, what) {
  if (!ok) {
    failures++;
    console.error('FAIL: ' + what);
  }
}

const refused = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'java\tscript:alert(1).yaml',
  'java\nscript:alert(1)',
  'java\rscript:alert(1)',
  ' javascript:alert(1)',
  '\u0001javascript:alert(1)',
  '\u0000javascript:alert(1)',
  'javascript\t:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  'file:///etc/passwd',
  '//attacker.example/x',
  '\\\\attacker.example\\x',
  '/\\attacker.example',
  '/etc/passwd',
  'kv-efficiency\\..\\x.yaml',
  '',
  '   ',
  null,
  42,
];
for (const href of refused) check(safeHref(href) === null, 'kept ' + JSON.stringify(href));

const kept = [
  ['llamacpp-qwen35-27b-rtx3090-64k.yaml', 'file:'],
  ['../models/qwen3.5-27b.yaml', 'file:'],
  ['javascript%3Aalert(1).yaml', 'file:'],
  ['java%09script%3Aalert(1).yaml', 'file:'],
  ['https://github.com/OWNER/REPO/blob/main/records/kv-efficiency/a.yaml', 'https:'],
  ['HTTP://example.org/a.yaml', 'http:'],
];
for (const [href, protocol] of kept) {
  const got = safeHref(href);
  check(got !== null, 'refused ' + JSON.stringify(href));
  if (got === null) continue;
  const url = new URL(got, page);
  check(url.protocol === protocol, JSON.stringify(href) + ' resolves to ' + url.protocol);
  if (protocol === 'file:') check(url.host === '', JSON.stringify(href) + ' leaves the disk for ' + url.host);
}

// Whatever is kept, resolved as a browser resolves it, is http(s) or on the page's disk.
const all = refused.concat(kept.map((k) => k[0]), ['a:b', 'x.yaml?y#z', '%2F%2Fhost', 'C:\\x', 'c:/x']);
for (const href of all) {
  const got = safeHref(href);
  if (got === null) continue;
  const url = new URL(got, page);
  check(['http:', 'https:', 'file:'].includes(url.protocol), JSON.stringify(href) + ' kept as ' + url.protocol);
  if (url.protocol === 'file:') check(url.host === '', JSON.stringify(href) + ' kept with host ' + url.host);
}

// The page's CSV downloads: a text that a spreadsheet would run as a formula gets a leading '
// (OWASP, "CSV Injection"), numbers never do, and the report's --no-formula-guard turns it off.
const csvMatch = /\n  function csv\(rows\) \{\n[\s\S]*?\n  \}\n/.exec(source);
check(csvMatch !== null, 'no csv function in src/output/report_page.js');
if (csvMatch) {
  const csvWith = (content) => new Function('content', csvMatch[0] + '\nreturn csv;')(content);
  const rows = [{ id: '=HYPERLINK("http://x")', a: '+1', b: '-2', c: '@SUM(A1)', d: '\tx', e: '\rx', n: -3, t: 'plain' }];
  const guarded = csvWith({}) (rows).split('\r\n')[1];
  check(guarded === '"\'=HYPERLINK(""http://x"")",\'+1,\'-2,\'@SUM(A1),\'\tx,"\'\rx",-3,plain',
        'guarded CSV line ' + JSON.stringify(guarded));
  const raw = csvWith({ formula_guard: false })(rows).split('\r\n')[1];
  check(raw === '"=HYPERLINK(""http://x"")",+1,-2,@SUM(A1),\tx,"\rx",-3,plain', 'unguarded CSV line ' + JSON.stringify(raw));
}

if (failures) process.exit(1);
console.log('report links: ' + refused.length + ' refused, ' + kept.length + ' kept, as the URL parser reads them; ' +
            'CSV formula cells guarded');
