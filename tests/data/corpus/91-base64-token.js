// Build and read a JWT-style token: base64url of UTF-8 JSON, as an API client would.
const enc = new TextEncoder();
const dec = new TextDecoder();

function b64urlEncode(text) {
  const bytes = enc.encode(text);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function b64urlDecode(part) {
  const b64 = part.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64.padEnd(Math.ceil(b64.length / 4) * 4, '='));
  return dec.decode(new Uint8Array(Array.from(bin, (c) => c.charCodeAt(0))));
}

const user = tools.users.get({ id: 7 });
const header = { alg: 'none', typ: 'JWT' };
const payload = { sub: user.id, name: `${user.name} Müller`, email: user.email, scope: ['read', 'wrïte'], iat: 1700000000 };
const token = [header, payload].map((p) => b64urlEncode(JSON.stringify(p))).join('.') + '.';
console.log(`token length ${token.length}, parts ${token.split('.').length}`);
console.log(`header part: ${token.split('.')[0]}`);

const [h, p] = token.split('.').map((part) => (part ? JSON.parse(b64urlDecode(part)) : null));
console.log(`decoded for ${p.name} (${p.email})`);

let badInput;
try {
  atob('not base64!');
} catch (e) {
  badInput = `${e.name}: ${e.message}`;
}
console.log(`bad input: ${badInput}`);

return {
  header: h,
  payload: p,
  roundTrip: JSON.stringify(p) === JSON.stringify(payload),
  urlSafe: !/[+/=]/.test(token),
  plainBtoa: btoa('user7:secret'),
  basicAuth: atob(btoa('user7:secret')).split(':'),
  badInput,
};
