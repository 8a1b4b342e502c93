// Checksum search results as bytes: encode, hash (FNV-1a and CRC-32), and keep binary copies.
const enc = new TextEncoder();

function fnv1a(bytes) {
  let h = 0x811c9dc5;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return ((c ^ 0xffffffff) >>> 0).toString(16).padStart(8, '0');
}

const rows = [];
for (const q of ['duktape', 'seccomp', 'naïve café']) {
  const res = tools.search({ q });
  const bytes = enc.encode(JSON.stringify(res));
  rows.push({ q, size: bytes.length, fnv: fnv1a(bytes), crc: crc32(bytes), bytes });
}
for (const r of rows) console.log(`${r.q.padEnd(12)} ${String(r.size).padStart(4)} bytes fnv=${r.fnv} crc=${r.crc}`);

// Pack the sizes into a buffer with a header, clone it, and read the clone back.
const buf = new ArrayBuffer(4 + rows.length * 4);
const view = new DataView(buf);
view.setUint32(0, rows.length);
rows.forEach((r, i) => view.setUint32(4 + i * 4, r.size, true));
const copy = structuredClone({ view, first: rows[0].bytes });
copy.first[0] = 0; // the copy is independent

const sizes = [];
for (let i = 0; i < copy.view.getUint32(0); i++) sizes.push(copy.view.getUint32(4 + i * 4, true));

const crcCheck = crc32(enc.encode('123456789')); // the standard check value
const into = new Uint8Array(6);
const { read, written } = enc.encodeInto('café!', into);

return {
  checks: rows.map(({ q, fnv, crc }) => ({ q, fnv, crc })),
  sizes,
  sizesMatch: sizes.every((s, i) => s === rows[i].size),
  originalIntact: rows[0].bytes[0] === 123,
  crcCheck,
  encodeInto: { read, written },
};
