#!/usr/bin/env node
/*
 * cases-node.js - checks case files (tests/data/lowering*.txt and the like)
 * against Node: each case's body must give, in Node, the value the file
 * says, the value check_lower and check_polyfills hold the engine to.
 *
 *     node tests/cases-node.js FILE...
 *
 * A case is a line "name<TAB>value as JSON<TAB>function body" (lines
 * beginning with # are comments). The body runs as the daemon runs it: as
 * the body of an async function (`return` gives the value, a returned
 * promise gives what it settles to); the value is compared as JSON, with
 * undefined read as null. Exit status: 0 when every case matches, 1 when
 * any differs (one line each on stdout), 2 on a usage error.
 */
'use strict';

const fs = require('fs');
const path = require('path');

const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;

function canonical(v) {
	return JSON.stringify(v === undefined ? null : v);
}

async function checkFile(file) {
	const lines = fs.readFileSync(file, 'utf8').split('\n');
	let bad = 0, n = 0;
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i];
		if (line === '' || line[0] === '#')
			continue;
		const parts = line.split('\t');
		if (parts.length < 3) {
			console.log(`${path.basename(file)}:${i + 1}: not name<TAB>value<TAB>body`);
			bad++;
			continue;
		}
		const [name, expected] = parts;
		const body = parts.slice(2).join('\t');
		n++;
		let got;
		try {
			got = canonical(await new AsyncFunction(body)());
		} catch (e) {
			got = 'threw ' + (e && e.stack ? e.stack.split('\n')[0] : String(e));
		}
		let want;
		try {
			want = canonical(JSON.parse(expected));
		} catch (e) {
			want = 'bad JSON ' + expected;
		}
		if (got !== want) {
			console.log(`${path.basename(file)}:${i + 1}: ${name}: expected ${want}, Node gives ${got}`);
			bad++;
		}
	}
	return {bad, n};
}

async function main() {
	const files = process.argv.slice(2);
	if (!files.length) {
		console.error('usage: node tests/cases-node.js FILE...');
		process.exit(2);
	}
	let bad = 0;
	for (const f of files) {
		const r = await checkFile(f);
		bad += r.bad;
		if (!r.n)
			console.log(`${f}: no cases`), bad++;
	}
	process.exit(bad ? 1 : 0);
}

main();
