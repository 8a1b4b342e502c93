#!/usr/bin/env node
/*
 * corpus-node.js - runs the modern-JavaScript corpus in Node and compares
 * each script's result with DIR/expected.json, the expectations
 * check_corpus.c holds the daemon to.
 *
 *     node tests/corpus-node.js DIR                 # compare; exit 0 when all match
 *     node tests/corpus-node.js DIR --write         # update the .js entries
 *     node tests/corpus-node.js DIR --typescript M  # also the .ts files, M being a
 *                                                   # path to the typescript module
 *
 * Each file is the body of an async function, run as the daemon runs it:
 * `return` gives the value, top-level `await` is allowed, and two names are
 * in scope: `tools` and `console`. Tools are synchronous functions answered
 * by the same deterministic responder as check_corpus.c's; console.log,
 * info and debug print through util.format, as Node's (and the daemon's)
 * console does. After the function's promise settles, the microtask queue
 * is let run empty.
 *
 * The .ts entries: Node runs no TypeScript, and this script has no
 * dependencies, so by default it checks only the .js files. The .ts
 * expectations were derived once by transpiling each .ts file with
 * TypeScript 5.9's ts.transpileModule (compilerOptions target ES2022,
 * module None; no type checking, diagnostics ignored), installed outside
 * the repository, and running the output here exactly like a .js file:
 * that is what `--typescript PATH/node_modules/typescript` does, and with
 * --write it updates the .ts entries too. Each entry was also read by eye
 * against what its script means.
 *
 * Exit status: 0 when every script checked matches, 1 when any differs
 * (one line per mismatch on stdout), 2 on a usage error.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const util = require('util');

const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;

/* ---- the responder: what every tool call returns (mirrors check_corpus.c) */

const TOOL_NAMES = ['echo', 'math.add', 'users.get', 'users.list', 'search', 'kv.get', 'fail'];

class ToolError extends Error {}

function user(id) {
	return {id: id, name: 'user' + id, email: 'user' + id + '@example.com', active: id % 2 == 1};
}

/* args arrives as JSON (null when the script passed nothing); the result
 * is a JSON value, or a ToolError whose message the script sees. */
function respond(name, args) {
	const a = args !== null && typeof args === 'object' ? args : {};
	switch (name) {
	case 'echo':
		return args;
	case 'math.add':
		return a.a + a.b;
	case 'users.get':
		return user(a.id);
	case 'users.list': {
		const limit = a.limit == null ? 3 : a.limit;
		const out = [];
		for (let id = 1; id <= limit; id++)
			out.push(user(id));
		return out;
	}
	case 'search':
		return {query: a.q, results: [{title: a.q + ' 1', score: 0.9}, {title: a.q + ' 2', score: 0.5}]};
	case 'kv.get':
		return 'value:' + a.key;
	case 'fail':
		throw new ToolError(String(a.message));
	default:
		throw new ToolError('unknown tool ' + name);
	}
}

function jsonCopy(v) {
	return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

/* The tools object: nested groups for dotted names, each tool a
 * synchronous function named like the daemon's ("tools.users.get"). */
function makeTools(calls) {
	const tools = {};
	for (const name of TOOL_NAMES) {
		const parts = name.split('.');
		let group = tools;
		for (const part of parts.slice(0, -1))
			group = group[part] || (group[part] = {});
		const fn = function (args) {
			calls.push(name);
			/* The daemon sends undefined as null; both ways are a JSON round trip. */
			const sent = args === undefined ? null : jsonCopy(args);
			let result;
			try {
				result = respond(name, sent);
			} catch (e) {
				if (e instanceof ToolError)
					throw new Error(e.message);
				throw e;
			}
			return jsonCopy(result);
		};
		Object.defineProperty(fn, 'name', {value: 'tools.' + name});
		group[parts[parts.length - 1]] = fn;
	}
	return tools;
}

/* ---- console, printing as Node's does */

function makeConsole(out) {
	const line = (args) => util.format(...args) + '\n';
	const stdout = function () {
		out.stdout += line(arguments);
	};
	const stderr = function () {
		out.stderr += line(arguments);
	};
	return {log: stdout, info: stdout, debug: stdout, warn: stderr, error: stderr};
}

/* ---- running one script */

let ts = null; /* the typescript module, with --typescript */

function compile(file, source) {
	if (file.endsWith('.ts'))
		source = ts.transpileModule(source, {
			compilerOptions: {target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.None},
			reportDiagnostics: false,
		}).outputText;
	return new AsyncFunction('tools', 'console', source);
}

function drain() {
	return new Promise((resolve) => setImmediate(resolve));
}

async function runScript(dir, file) {
	const source = fs.readFileSync(path.join(dir, file), 'utf8');
	const calls = [];
	const out = {stdout: '', stderr: ''};
	let fn;
	try {
		fn = compile(file, source);
	} catch (e) {
		return {error: 'does not compile: ' + e.message};
	}
	let settled;
	try {
		const v = await fn(makeTools(calls), makeConsole(out));
		settled = {value: jsonCopy(v)};
	} catch (e) {
		settled = {error: 'rejected: ' + (e && e.stack ? e.stack.split('\n')[0] : String(e))};
	}
	await drain();
	if (settled.error)
		return settled;
	const entry = {};
	if (settled.value !== undefined)
		entry.value = settled.value;
	entry.stdout = out.stdout;
	entry.calls = calls;
	return {entry: entry};
}

/* ---- comparing */

function deepEqual(a, b) {
	if (a === b)
		return true;
	if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object')
		return false;
	if (Array.isArray(a) !== Array.isArray(b))
		return false;
	const ka = Object.keys(a);
	const kb = Object.keys(b);
	if (ka.length !== kb.length)
		return false;
	return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
}

function cut(s) {
	return s.length > 300 ? s.slice(0, 300) + '...' : s;
}

function differences(want, got) {
	const out = [];
	if ('value' in want !== 'value' in got)
		out.push('value: expected ' + ('value' in want ? JSON.stringify(want.value) : 'none') +
			', got ' + ('value' in got ? JSON.stringify(got.value) : 'none'));
	else if ('value' in want && !deepEqual(want.value, got.value))
		out.push('value: expected ' + cut(JSON.stringify(want.value)) + ', got ' +
			cut(JSON.stringify(got.value)));
	if (want.stdout !== got.stdout)
		out.push('stdout: expected ' + cut(JSON.stringify(want.stdout)) + ', got ' +
			cut(JSON.stringify(got.stdout)));
	if (!deepEqual(want.calls, got.calls))
		out.push('calls: expected ' + JSON.stringify(want.calls) + ', got ' +
			JSON.stringify(got.calls));
	return out;
}

function writeExpected(file, expected) {
	const names = Object.keys(expected).sort();
	const lines = names.map((n) => '  ' + JSON.stringify(n) + ': ' + JSON.stringify(expected[n]));
	fs.writeFileSync(file, '{\n' + lines.join(',\n') + '\n}\n');
}

async function main(argv) {
	let dir = null;
	let write = false;
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === '--write')
			write = true;
		else if (argv[i] === '--typescript' && i + 1 < argv.length)
			ts = require(path.resolve(argv[++i]));
		else if (!dir && !argv[i].startsWith('--'))
			dir = argv[i];
		else
			dir = null, i = argv.length;
	}
	if (!dir) {
		process.stderr.write('usage: node corpus-node.js DIR [--write] [--typescript PATH]\n');
		return 2;
	}
	const expectedFile = path.join(dir, 'expected.json');
	const expected = fs.existsSync(expectedFile)
		? JSON.parse(fs.readFileSync(expectedFile, 'utf8'))
		: {};
	const files = fs.readdirSync(dir).filter((f) => /\.(js|ts)$/.test(f)).sort();
	let bad = 0;
	let checked = 0;
	for (const file of files) {
		if (file.endsWith('.ts') && !ts) {
			if (!expected[file]) {
				console.log(file + ': no entry in expected.json');
				bad++;
			}
			continue;
		}
		checked++;
		const r = await runScript(dir, file);
		if (r.error) {
			console.log(file + ': ' + r.error);
			bad++;
			continue;
		}
		if (write) {
			expected[file] = r.entry;
			continue;
		}
		if (!expected[file]) {
			console.log(file + ': no entry in expected.json');
			bad++;
			continue;
		}
		const diffs = differences(expected[file], r.entry);
		for (const d of diffs)
			console.log(file + ': ' + d);
		if (diffs.length)
			bad++;
	}
	for (const name of Object.keys(expected))
		if (!files.includes(name)) {
			console.log(name + ': in expected.json but no such file');
			bad++;
		}
	if (write)
		writeExpected(expectedFile, expected);
	const skipped = files.length - checked;
	console.log(checked + ' scripts run' + (skipped ? ', ' + skipped + ' .ts not run (no --typescript)' : '') +
		', ' + (bad ? bad + ' failed' : 'all match'));
	return bad ? 1 : 0;
}

main(process.argv.slice(2)).then(
	(status) => {
		process.exitCode = status;
	},
	(e) => {
		process.stderr.write(String(e && e.stack ? e.stack : e) + '\n');
		process.exitCode = 2;
	}
);
