// Validate and normalise user-supplied endpoints: schemes, hosts in every
// form (IDN, IPv4 in hex and octal, IPv6), default ports dropped.
const inputs = [
  'HTTPS://Example.COM:443/api/',
  'http://0x7f.0.0.1:8080/health',
  'http://0300.0250.0.1/',
  'http://2130706433/',
  'http://[0:0:0:0:0:0:0:1]:3000/',
  'https://bücher.example/katalog',
  'https://user:secret@api.example.com/v1',
  'ftp://files.example.com:21/pub',
  'localhost:8080',
  'http://256.1.1.1/',
  'http://exa mple.com',
  '',
];

function check(input) {
  if (!URL.canParse(input)) return { input, ok: false, reason: 'not a URL' };
  const url = new URL(input);
  if (!['http:', 'https:'].includes(url.protocol))
    return { input, ok: false, reason: `scheme ${url.protocol} not allowed` };
  if (url.username || url.password) {
    url.username = '';
    url.password = '';
  }
  return { input, ok: true, normalised: url.href, host: url.hostname, port: url.port || 'default' };
}

const report = inputs.map(check);
for (const r of report) {
  console.log(r.ok ? `ok   ${r.normalised}` : `fail ${JSON.stringify(r.input)}: ${r.reason}`);
}
let error;
try {
  new URL('/relative/only');
} catch (e) {
  error = { name: e.name, message: e.message, code: e.code, input: e.input };
}
return { valid: report.filter((r) => r.ok).length, report, error };
