// Checks tests/data/numbers.txt against Node: each line is a double's 64
// bits in hex and the text JSON.stringify gives for it. With --generate,
// writes the file (to stdout) from the same seed, so that the list is
// reproducible: chosen numbers, every power of two, every power of ten a
// double holds, random bit patterns and random short decimals.
'use strict';
const fs = require('fs');
const path = require('path');

function fromBits(hex) {
	const b = Buffer.from(hex, 'hex');
	return b.readDoubleBE(0);
}
function toBits(d) {
	const b = Buffer.alloc(8);
	b.writeDoubleBE(d, 0);
	return b.toString('hex');
}

function generate() {
	const out = ['# A double\'s 64 bits in hex, and JSON.stringify of it in Node 20.',
		'# Written by tests/numbers-node.js --generate, which checks it when run bare.'];
	const add = (d) => out.push(toBits(d) + '\t' + JSON.stringify(d));
	[0, -0, NaN, Infinity, -Infinity, 1, -1, 0.1, 0.2, 0.3, 0.1 + 0.2, 1 / 3, 2 / 3, -1 / 3,
	 1e21, 1e-7, 1e-6, 1e20, 999999999999999900000, 1e21 - 65536, 123456789012345680000,
	 5e-324, -5e-324, 1e-323, 2.2250738585072014e-308, 2.225073858507201e-308,
	 Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, Number.EPSILON,
	 Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, Number.MAX_SAFE_INTEGER + 2,
	 -Number.MAX_SAFE_INTEGER, 2 ** 63, -(2 ** 63), 2 ** 64, 2 ** 63 - 1024, 9007199254740993,
	 Math.PI, Math.E, Math.SQRT2, Math.LN2, 1.5, -2.5, 100, 1e3, 1234.5678, 0.000001,
	 0.0000001, 0.00000123, 1.7976931348623157e308, 4.35, 0.07, 1.005, 8.41, 17.99,
	 299792458, 6.02214076e23, 1.602176634e-19, 12345678901234567890, 0.1 * 3, 1e300 * 10,
	 5e-7, 1.2e-6, 4294967295, 4294967296, -2147483648, 1e15, 1e16, 1e17, 123e-20,
	 1.7976931348623155e308, 3e-324, 2 ** -1022 - 2 ** -1074].forEach(add);
	for (let e = -1074; e <= 1023; e++)
		add(2 ** e);
	for (let e = -323; e <= 308; e++)
		add(Number('1e' + e));
	// xorshift, seeded: random bit patterns and random short decimals.
	let s = 0x2545F4914F6CDD1Dn;
	const next = () => {
		s ^= (s << 13n) & 0xFFFFFFFFFFFFFFFFn;
		s ^= s >> 7n;
		s ^= (s << 17n) & 0xFFFFFFFFFFFFFFFFn;
		return s;
	};
	for (let i = 0; i < 1000;) {
		const d = fromBits(next().toString(16).padStart(16, '0'));
		if (Number.isFinite(d)) {
			add(d);
			i++;
		}
	}
	for (let i = 0; i < 500; i++) {
		const digits = Number(next() % 100000000n);
		const scale = Number(next() % 40n) - 20;
		add(Number(digits + 'e' + scale));
	}
	return out.join('\n') + '\n';
}

if (process.argv[2] === '--generate') {
	process.stdout.write(generate());
	process.exit(0);
}
const file = process.argv[2] || path.join(__dirname, 'data', 'numbers.txt');
let bad = 0, n = 0;
for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
	if (!line || line.startsWith('#'))
		continue;
	const [hex, text] = line.split('\t');
	const got = JSON.stringify(fromBits(hex));
	n++;
	if (got !== text) {
		console.log(`numbers.txt: ${hex}: Node gives ${got}, the file says ${text}`);
		bad++;
	}
}
console.log(`numbers.txt: ${n - bad}/${n} as Node gives them`);
process.exit(bad ? 1 : 0);
