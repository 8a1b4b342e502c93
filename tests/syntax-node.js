#!/usr/bin/env node
/*
 * syntax-node.js - checks tests/data/syntax.txt against Node 20: the
 * errors check_syntax holds the engine to are Node's own where Node raises
 * them too, and the constructs sandboxd refuses are what the file says
 * they are to Node.
 *
 *     node tests/syntax-node.js [FILE]
 *
 * A case is a line (lines beginning with # are comments) of seven fields
 * separated by tabs:
 *
 *     name  lang  kind  node  place  message  code
 *
 * lang: js, ts or any (the request's language); kind: syntax or script
 * (the error's kind); place: LINE:COLUMN:CARETS (column 1-based, carets
 * how many the stack's caret line has; 0 where not compared); message:
 * the error's message without "SyntaxError: " or the place; code: the
 * script as a JSON string. node says what Node makes of the code, run as
 * the daemon runs it (the body of an async function, on lines of its own):
 *
 *     same      Node raises this error too: the same message (a script
 *               error's name and message), line, column and carets
 *     compiles  Node compiles it (a construct sandboxd lacks)
 *     fails     Node refuses it too, in other words
 *     -         not checked (TypeScript)
 *
 * Exit status: 0 when every case holds, 1 when any does not (one line each
 * on stdout), 2 on a usage error.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const vm = require('vm');

const HEAD = '(async function () {\n';
const TAIL = '\n})';

function compile(code) {
	return new vm.Script(HEAD + code + TAIL, {filename: 'script.js', lineOffset: -1});
}

/* Node's place of a syntax error: its decorated stack's caret line. */
function syntaxPlace(e) {
	const lines = String(e.stack).split('\n');
	const m = /^script\.js:(\d+)$/.exec(lines[0]);
	if (!m || lines.length < 3)
		return '?';
	const caret = lines[2], col = caret.indexOf('^');
	const n = col < 0 ? 0 : caret.slice(col).match(/^\^*/)[0].length;
	return `${m[1]}:${col + 1}:${n}`;
}

async function check(c) {
	if (c.node === '-')
		return null;
	if (c.kind === 'syntax') {
		let err = null;
		try {
			compile(c.code);
		} catch (e) {
			err = e;
		}
		if (c.node === 'compiles')
			return err ? `Node refuses it: ${err.message}` : null;
		if (!err)
			return 'Node compiles it';
		if (!(err instanceof SyntaxError))
			return `Node throws ${err}`;
		if (c.node === 'fails')
			return null;
		const place = syntaxPlace(err);
		if (err.message !== c.message || place !== c.place)
			return `Node gives "${err.message}" at ${place}`;
		return null;
	}
	let fn;
	try {
		fn = compile(c.code).runInThisContext();
	} catch (e) {
		return `Node refuses it: ${e.message}`;
	}
	try {
		await fn();
	} catch (e) {
		const m = /\(?script\.js:(\d+):\d+\)?/.exec(String(e.stack).split('\n').slice(1).join('\n'));
		const got = `${e.name}: ${e.message}`;
		const line = m ? m[1] : '?';
		if (c.node === 'fails')
			return null;
		if (got !== c.message || line !== c.place.split(':')[0])
			return `Node gives "${got}" at line ${line}`;
		return null;
	}
	return 'Node runs it without an error';
}

async function main() {
	const file = process.argv[2] || path.join(__dirname, 'data', 'syntax.txt');
	const lines = fs.readFileSync(file, 'utf8').split('\n');
	let bad = 0, n = 0;
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i];
		if (line === '' || line[0] === '#')
			continue;
		const f = line.split('\t');
		if (f.length !== 7) {
			console.log(`${path.basename(file)}:${i + 1}: not seven fields`);
			bad++;
			continue;
		}
		const c = {name: f[0], lang: f[1], kind: f[2], node: f[3], place: f[4], message: f[5]};
		try {
			c.code = JSON.parse(f[6]);
		} catch (e) {
			console.log(`${path.basename(file)}:${i + 1}: ${c.name}: the code is not a JSON string`);
			bad++;
			continue;
		}
		n++;
		const why = await check(c);
		if (why) {
			console.log(`${path.basename(file)}:${i + 1}: ${c.name}: ${why}`);
			bad++;
		}
	}
	if (!n) {
		console.log(`${file}: no cases`);
		bad++;
	}
	process.exit(bad ? 1 : 0);
}

main();
