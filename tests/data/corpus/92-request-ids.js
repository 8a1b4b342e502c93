// Tag each tool call with a request id and a random nonce, then check what came back.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function nonceHex(bytes = 8) {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
}

const sent = [];
for (const q of ['alpha', 'beta', 'gamma', 'delta']) {
  const requestId = crypto.randomUUID();
  const echoed = tools.echo({ requestId, nonce: nonceHex(), q });
  sent.push({ requestId, echoed });
}

const ids = new Set(sent.map((s) => s.requestId));
const allMatch = sent.every((s) => s.echoed.requestId === s.requestId);
console.log(`sent ${sent.length} requests, ${ids.size} distinct ids, echoes match: ${allMatch}`);

let quota;
try {
  crypto.getRandomValues(new Uint8Array(70000));
} catch (e) {
  quota = e.name;
}
let floats;
try {
  crypto.getRandomValues(new Float64Array(2));
} catch (e) {
  floats = e.name;
}
console.log(`too many bytes: ${quota}; floats: ${floats}`);

// A random integer in [0, 100) from 32 random bits, as models write it.
const [r] = crypto.getRandomValues(new Uint32Array(1));
const pick = r % 100;

return {
  distinct: ids.size,
  wellFormed: sent.every((s) => UUID.test(s.requestId)),
  nonceShape: sent.every((s) => /^[0-9a-f]{16}$/.test(s.echoed.nonce)),
  queries: sent.map((s) => s.echoed.q),
  allMatch,
  quota,
  floats,
  pickInRange: pick >= 0 && pick < 100 && Number.isInteger(pick),
};
