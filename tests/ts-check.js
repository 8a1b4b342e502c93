#!/usr/bin/env node
/*
 * ts-check.js - checks worker/js/typescript.js against tests/data/typescript.txt.
 *
 * Each case is TypeScript plus either the JavaScript its AST must equal
 * (compared with acorn's own parse of that JavaScript, positions ignored)
 * or, after "--- error", a substring of the expected error message.
 * Also checks that plain acorn and the TypeScript parser agree on the
 * JavaScript side of every case. Usage: node tests/ts-check.js [filter]
 */
'use strict';

var fs = require('fs');
var path = require('path');
var vm = require('vm');

var ACORN = '/usr/share/nodejs/acorn/dist/acorn.js';
var root = path.join(__dirname, '..');
var acorn = require(ACORN);
var ts = vm.runInThisContext(fs.readFileSync(path.join(root, 'worker/js/typescript.js'), 'utf8'),
			     {filename: 'typescript.js'})(acorn);

var OPTIONS = {ecmaVersion: 2022, sourceType: 'script', allowReturnOutsideFunction: true,
	       allowAwaitOutsideFunction: true, locations: true};

function options() {
	return Object.assign({}, OPTIONS);
}

function parseCases(text) {
	var cases = [], cur = null, part = null;
	text.split('\n').forEach(function (line, i) {
		if (line.slice(0, 4) === '=== ') {
			cur = {name: line.slice(4).trim(), line: i + 1, input: [], expected: [], error: null};
			cases.push(cur);
			part = cur.input;
		} else if (cur && line === '---') {
			part = cur.expected;
		} else if (cur && line.slice(0, 10) === '--- error') {
			part = null;
			cur.error = [];
			part = cur.error;
		} else if (part) {
			part.push(line);
		}
	});
	cases.forEach(function (c) {
		c.input = c.input.join('\n').replace(/\s+$/, '') + '\n';
		c.expected = c.expected.join('\n').replace(/\s+$/, '') + '\n';
		if (c.error)
			c.error = c.error.join('\n').trim();
	});
	return cases;
}

// Plain JSON-like copy without positions.
function strip(node) {
	if (Array.isArray(node))
		return node.map(strip);
	if (typeof node === 'bigint')
		return node + 'n';
	if (node === null || typeof node !== 'object')
		return node;
	if (node instanceof RegExp)
		return String(node);
	var out = {};
	Object.keys(node).sort().forEach(function (k) {
		if (k === 'start' || k === 'end' || k === 'loc' || k === 'range')
			return;
		out[k] = strip(node[k]);
	});
	return out;
}

function firstDiff(a, b, where) {
	if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object')
		return a === b || (a !== a && b !== b) ? null :
			where + ': ' + JSON.stringify(a) + ' != ' + JSON.stringify(b);
	if (Array.isArray(a) !== Array.isArray(b))
		return where + ': array mismatch';
	var keys = Object.keys(a).concat(Object.keys(b).filter(function (k) { return !(k in a); }));
	for (var i = 0; i < keys.length; i++) {
		var k = keys[i];
		var d = firstDiff(a[k], b[k], where + (Array.isArray(a) ? '[' + k + ']' : '.' + k) +
				  (a[k] && a[k].type ? '<' + a[k].type + '>' : ''));
		if (d)
			return d;
	}
	return null;
}

// Every node must have sane positions inside the input.
function checkPositions(node, input, where) {
	if (Array.isArray(node)) {
		for (var i = 0; i < node.length; i++) {
			var r = checkPositions(node[i], input, where);
			if (r)
				return r;
		}
		return null;
	}
	if (node === null || typeof node !== 'object' || typeof node.type !== 'string')
		return null;
	if (!(node.start >= 0 && node.end >= node.start && node.end <= input.length))
		return where + ' ' + node.type + ' has bad start/end';
	if (!node.loc || !node.loc.start || !node.loc.end || typeof node.loc.start.line !== 'number')
		return where + ' ' + node.type + ' lacks loc';
	for (var k in node) {
		if (k === 'loc')
			continue;
		var res = checkPositions(node[k], input, where);
		if (res)
			return res;
	}
	return null;
}

function run(filter) {
	var file = path.join(__dirname, 'data/typescript.txt');
	var cases = parseCases(fs.readFileSync(file, 'utf8'));
	var failed = 0, ran = 0;
	cases.forEach(function (c) {
		if (filter && c.name.indexOf(filter) < 0)
			return;
		ran++;
		var problem = null, got, err = null;
		try {
			got = ts.parse(c.input, options());
		} catch (e) {
			err = e;
		}
		if (c.error !== null) {
			if (!err)
				problem = 'expected error "' + c.error + '", parsed fine';
			else if (String(err.message).indexOf(c.error) < 0)
				problem = 'expected error "' + c.error + '", got "' + err.message + '"';
			else if (!(err instanceof SyntaxError) || typeof err.pos !== 'number' || !err.loc)
				problem = 'error is not a positioned SyntaxError: ' + err;
		} else if (err) {
			problem = 'unexpected error: ' + (err.stack || err);
		} else {
			var want;
			try {
				want = acorn.parse(c.expected, options());
			} catch (e) {
				problem = 'expected JS does not parse: ' + e.message;
			}
			if (!problem)
				problem = firstDiff(strip(got), strip(want), 'Program');
			if (!problem)
				problem = checkPositions(got, c.input, 'position:');
			if (!problem) {
				// The JS side must come out the same from both parsers.
				try {
					var again = ts.parse(c.expected, options());
					var d = firstDiff(strip(again), strip(want), 'Program');
					if (d)
						problem = 'JS parses differently with the TS parser: ' + d;
				} catch (e) {
					problem = 'JS fails with the TS parser: ' + e.message;
				}
			}
		}
		if (problem) {
			failed++;
			console.log('FAIL ' + c.name + ' (line ' + c.line + '): ' + problem);
		}
	});
	console.log(ran + ' cases, ' + (ran - failed) + ' passed, ' + failed + ' failed');
	return failed === 0;
}

process.exit(run(process.argv[2]) ? 0 : 1);
