// Checks the value files against Node 20:
//   tests/data/numbers.txt: a double's 64 bits in hex, TAB, the text
//     JSON.stringify gives for it;
//   tests/data/values.txt: name, TAB, the text JSON.stringify gives for the
//     value the body returns ("-" for none), TAB, a function body, run as
//     the body of an async function as the daemon runs a script;
//   tests/data/error-data.txt: name, TAB, the error.data the daemon
//     reports for what the body throws ("-" for none), TAB, the body.
// With --generate, writes numbers.txt (to stdout) from a fixed seed:
// chosen numbers, every power of two, every power of ten a double holds,
// random bit patterns and random short decimals. With --fill FILE (lines
// of name TAB body), writes FILE's lines with Node's text between them, in
// the form of values.txt, or of error-data.txt with --errors.
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

// error.data as the daemon makes it (PROTOCOL.md, error.data): an Error's
// own enumerable fields and its own cause and errors, errors among them as
// {name, message, ...their fields} four levels down; a thrown object as it
// is; nothing for a primitive, or when that is empty.
function errorFields(e, depth, named) {
	const out = {};
	if (named) {
		out.name = e.name;
		out.message = e.message;
	}
	for (const k of Object.keys(e))
		out[k] = dataValue(e[k], depth, false);
	for (const k of ['cause', 'errors'])
		if (Object.prototype.hasOwnProperty.call(e, k))
			out[k] = dataValue(e[k], depth, k === 'errors');
	return out;
}
function dataValue(v, depth, list) {
	if (depth > 0 && v instanceof Error)
		return errorFields(v, depth - 1, true);
	if (depth > 0 && list && Array.isArray(v))
		return v.map((x) => dataValue(x, depth, false));
	return v;
}
function errorData(thrown) {
	let d;
	if (thrown instanceof Error)
		d = errorFields(thrown, 4, false);
	else if (thrown !== null && typeof thrown === 'object')
		d = thrown;
	else
		return '-';
	let t;
	try {
		t = JSON.stringify(d);
	} catch (e) {
		return '-';
	}
	return t === undefined || t === '{}' || t === '[]' || !/^[[{]/.test(t) ? '-' : t;
}

const AsyncFunction = (async function () {}).constructor;
async function valueText(body) {
	const v = await new AsyncFunction(body)();
	const t = JSON.stringify(v);
	return t === undefined ? '-' : t;
}
async function errorText(body) {
	try {
		await new AsyncFunction(body)();
	} catch (e) {
		return errorData(e);
	}
	return 'no error';
}

function cases(file) {
	const out = [];
	for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
		if (!line || line.startsWith('#'))
			continue;
		const f = line.split('\t');
		out.push(f);
	}
	return out;
}

async function main() {
	const arg = process.argv[2];
	if (arg === '--generate') {
		process.stdout.write(generate());
		return 0;
	}
	if (arg === '--fill') {
		const errors = process.argv[4] === '--errors';
		for (const [name, body] of cases(process.argv[3]))
			console.log(`${name}\t${await (errors ? errorText : valueText)(body)}\t${body}`);
		return 0;
	}
	const dir = path.join(__dirname, 'data');
	let bad = 0, n = 0;
	for (const [hex, text] of cases(path.join(dir, 'numbers.txt'))) {
		const got = JSON.stringify(fromBits(hex));
		n++;
		if (got !== text) {
			console.log(`numbers.txt: ${hex}: Node gives ${got}, the file says ${text}`);
			bad++;
		}
	}
	for (const [file, fn] of [['values.txt', valueText], ['error-data.txt', errorText]]) {
		for (const [name, text, body] of cases(path.join(dir, file))) {
			const got = await fn(body);
			n++;
			if (got !== text) {
				console.log(`${file}: ${name}: Node gives ${got}, the file says ${text}`);
				bad++;
			}
		}
	}
	console.log(`values: ${n - bad}/${n} as Node gives them`);
	return bad ? 1 : 0;
}

main().then((rc) => process.exit(rc));
