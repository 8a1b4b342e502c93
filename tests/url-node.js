#!/usr/bin/env node
/*
 * url-node.js - checks tests/data/url-parse.txt against Node's own URL: each
 * input (parsed against its base, when it has one) must give, in Node, the
 * components the file says, those check_url holds the engine's URL to.
 *
 *     node tests/url-node.js FILE          check
 *     node tests/url-node.js --fill FILE   write Node's answers into FILE
 *
 * A case is a line "input<TAB>base<TAB>expected", input and base as JSON
 * strings (base null when there is none) and expected as JSON: the object
 * {href, origin, protocol, username, password, host, hostname, port,
 * pathname, search, hash} Node gives, or the string "Invalid URL" when Node
 * throws its TypeError (code ERR_INVALID_URL). Lines beginning with # are
 * comments. --fill keeps comments and inputs and replaces every expected
 * with what Node gives (a line may then hold only input and base). Exit
 * status: 0 when every case matches, 1 when any differs (one line each on
 * stdout), 2 on a usage error.
 */
'use strict';

const fs = require('fs');
const path = require('path');

const FIELDS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port',
		'pathname', 'search', 'hash'];

function nodeGives(input, base) {
	let u;
	try {
		u = base === null ? new URL(input) : new URL(input, base);
	} catch (e) {
		if (e.code === 'ERR_INVALID_URL' && e.message === 'Invalid URL')
			return 'Invalid URL';
		return 'threw ' + e;
	}
	const out = {};
	for (const f of FIELDS)
		out[f] = u[f];
	return out;
}

/* JSON the engine's ES5 parser also reads as a literal: U+2028 and U+2029
 * escaped. */
function json(v) {
	return JSON.stringify(v).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function main() {
	const args = process.argv.slice(2);
	const fill = args[0] === '--fill';
	if (fill)
		args.shift();
	if (args.length !== 1) {
		console.error('usage: node tests/url-node.js [--fill] FILE');
		process.exit(2);
	}
	const file = args[0];
	const lines = fs.readFileSync(file, 'utf8').split('\n');
	if (lines[lines.length - 1] === '')
		lines.pop();
	let bad = 0, n = 0;
	const out = [];
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i];
		if (line === '' || line[0] === '#') {
			out.push(line);
			continue;
		}
		const parts = line.split('\t');
		let input, base;
		try {
			input = JSON.parse(parts[0]);
			base = JSON.parse(parts[1]);
		} catch (e) {
			console.log(`${path.basename(file)}:${i + 1}: input and base are not JSON`);
			bad++;
			continue;
		}
		n++;
		const got = nodeGives(input, base);
		if (fill) {
			out.push([json(input), json(base), json(got)].join('\t'));
			continue;
		}
		if (parts.length !== 3 || JSON.stringify(JSON.parse(parts[2])) !== JSON.stringify(got)) {
			console.log(`${path.basename(file)}:${i + 1}: ${parts[0]} against ${parts[1]}: ` +
				    `expected ${parts[2]}, Node gives ${JSON.stringify(got)}`);
			bad++;
		}
	}
	if (fill)
		fs.writeFileSync(file, out.join('\n') + '\n');
	if (!n) {
		console.log(`${file}: no cases`);
		bad++;
	}
	process.exit(bad ? 1 : 0);
}

main();
