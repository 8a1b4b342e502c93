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
 * undefined read as null.
 *
 * A file named out-*.txt holds output cases, "name<TAB>value<TAB>stdout
 * as a JSON string<TAB>stderr as a JSON string, or null<TAB>body": each
 * runs in a node process of its own (with --unhandled-rejections=warn),
 * which ends as Node ends, when nothing is left to run; its value, stdout
 * and stderr (unless null) must be the file's, "(node:NNN)" read as
 * "(node:PID)".
 *
 *     node tests/cases-node.js --print [--no-stderr] < LINES
 *
 * reads lines "name<TAB>body" and prints each as an output case line, with
 * the value and output Node gives (stderr null with --no-stderr).
 *
 * Exit status: 0 when every case matches, 1 when any differs (one line
 * each on stdout), 2 on a usage error.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const child = require('child_process');

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

/* The child's program: the body from stdin, run as an async function
 * body; the value as JSON on fd 3 once the process is about to exit. */
const OUTPUT_CHILD = `
const fs = require('fs');
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
let value = null;
process.on('exit', () => fs.writeSync(3, JSON.stringify(value === undefined ? null : value) ?? 'null'));
new AsyncFunction(fs.readFileSync(0, 'utf8'))().then(
	(v) => { value = v; },
	(e) => { value = 'threw ' + (e && e.stack ? e.stack.split('\\n')[0] : String(e)); });
`;

function nodePid(s) {
	return s.replace(/\(node:\d+\)/g, '(node:PID)');
}

/* Runs body in a node process of its own: [value JSON, stdout, stderr]. */
function runChild(body) {
	const r = child.spawnSync(process.execPath,
		['--unhandled-rejections=warn', '-e', OUTPUT_CHILD],
		{input: body, stdio: ['pipe', 'pipe', 'pipe', 'pipe'], timeout: 30000,
		 encoding: 'utf8'});
	return [r.output[3] || 'no value', r.output[1], r.output[2]];
}

function printCases(noStderr) {
	for (const line of fs.readFileSync(0, 'utf8').split('\n')) {
		if (line === '' || line[0] === '#')
			continue;
		const tab = line.indexOf('\t');
		const name = line.slice(0, tab), body = line.slice(tab + 1);
		const [value, out, err] = runChild(body);
		console.log([name, value, JSON.stringify(out), noStderr ? 'null' : JSON.stringify(err),
			body].join('\t'));
	}
}

function checkOutputFile(file) {
	const lines = fs.readFileSync(file, 'utf8').split('\n');
	let bad = 0, n = 0;
	const where = (i) => `${path.basename(file)}:${i + 1}`;
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i];
		if (line === '' || line[0] === '#')
			continue;
		const parts = line.split('\t');
		if (parts.length < 5) {
			console.log(`${where(i)}: not name<TAB>value<TAB>stdout<TAB>stderr<TAB>body`);
			bad++;
			continue;
		}
		const [name, value, out, err] = parts;
		const body = parts.slice(4).join('\t');
		n++;
		let want;
		try {
			want = [canonical(JSON.parse(value)), JSON.parse(out), JSON.parse(err)];
		} catch (e) {
			console.log(`${where(i)}: ${name}: bad JSON in the value or output fields`);
			bad++;
			continue;
		}
		const got = runChild(body);
		const what = ['value', 'stdout', 'stderr'];
		for (let k = 0; k < 3; k++) {
			if (k === 2 && want[2] === null)
				continue;
			const w = k ? nodePid(want[k]) : want[k], g = k ? nodePid(got[k]) : got[k];
			if (w !== g) {
				console.log(`${where(i)}: ${name}: ${what[k]}: expected ` +
					`${JSON.stringify(w)}, Node gives ${JSON.stringify(g)}`);
				bad++;
			}
		}
	}
	return {bad, n};
}

async function main() {
	if (process.argv[2] === '--print')
		return printCases(process.argv[3] === '--no-stderr');
	const files = process.argv.slice(2);
	if (!files.length) {
		console.error('usage: node tests/cases-node.js FILE...');
		process.exit(2);
	}
	let bad = 0;
	for (const f of files) {
		const r = path.basename(f).startsWith('out-') ? checkOutputFile(f) : await checkFile(f);
		bad += r.bad;
		if (!r.n)
			console.log(`${f}: no cases`), bad++;
	}
	process.exit(bad ? 1 : 0);
}

main();
