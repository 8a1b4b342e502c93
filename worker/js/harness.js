/*
 * harness.js - the globals of test mode: test() and assert, after uvu.
 *
 * Compiled once in the forkserver; a test-mode worker calls it to install
 * the globals, runs the code and the tests (which register tests with
 * test()), then calls the returned run() for the results. ES5 only: this
 * runs on Duktape 2.7.
 */
(function (global, internals) {
	'use strict';
	var now = Date.now;
	var stringify = JSON.stringify;
	var keys = Object.keys;
	var isArray = Array.isArray;
	var hasOwn = Object.prototype.hasOwnProperty;
	var getProto = Object.getPrototypeOf;

	var MAX_SHOWN = 200; /* characters of a value in a message */
	var MAX_DIFFS = 5;   /* differing paths listed for deep equality */

	/* ---- showing values */

	function cut(s) {
		return s.length > MAX_SHOWN ? s.slice(0, MAX_SHOWN) + '...' : s;
	}

	function show(v) {
		var t = typeof v;
		if (t === 'string')
			return cut(stringify(v));
		if (v === undefined)
			return 'undefined';
		if (t === 'number' && v !== v)
			return 'NaN';
		if (t === 'function')
			return '[Function' + (v.name ? ': ' + v.name : '') + ']';
		if (v instanceof RegExp || v instanceof Error)
			return cut(String(v));
		if (v instanceof Date)
			return 'Date(' + (isNaN(v.getTime()) ? 'Invalid' : v.toISOString()) + ')';
		try {
			var s = stringify(v);
			return cut(s === undefined ? String(v) : s);
		} catch (e) {
			return cut(String(v)); /* a cycle */
		}
	}

	/* ---- deep equality, as uvu's (dequal) */

	function dequal(a, b) {
		if (a === b)
			return true;
		if (a && b && typeof a === 'object' && typeof b === 'object') {
			if (a.constructor !== b.constructor || getProto(a) !== getProto(b))
				return false;
			if (a instanceof Date)
				return a.getTime() === b.getTime();
			if (a instanceof RegExp)
				return String(a) === String(b);
			if (isArray(a)) {
				if (a.length !== b.length)
					return false;
				for (var i = 0; i < a.length; i++)
					if (!dequal(a[i], b[i]))
						return false;
				return true;
			}
			var ka = keys(a), kb = keys(b);
			if (ka.length !== kb.length)
				return false;
			for (var k = 0; k < ka.length; k++)
				if (!hasOwn.call(b, ka[k]) || !dequal(a[ka[k]], b[ka[k]]))
					return false;
			return true;
		}
		return a !== a && b !== b; /* NaN equals NaN */
	}

	/* The first few paths where found and expected differ. */
	function diff(found, expected, path, out) {
		if (out.length >= MAX_DIFFS || dequal(found, expected))
			return out;
		var both = found && expected && typeof found === 'object' &&
			typeof expected === 'object' && isArray(found) === isArray(expected) &&
			getProto(found) === getProto(expected) && !(found instanceof Date) &&
			!(found instanceof RegExp);
		if (!both) {
			out.push((path || '(root)') + ': expected ' + show(expected) + ', found ' + show(found));
			return out;
		}
		var names = keys(expected), seen = {}, i;
		for (i = 0; i < names.length; i++)
			seen[names[i]] = true;
		var extra = keys(found);
		for (i = 0; i < extra.length; i++)
			if (!seen[extra[i]])
				names.push(extra[i]);
		for (i = 0; i < names.length && out.length < MAX_DIFFS; i++) {
			var name = names[i];
			var sub = isArray(expected) ? path + '[' + name + ']' : path + '.' + name;
			if (!hasOwn.call(found, name))
				out.push(sub + ': expected ' + show(expected[name]) + ', missing');
			else if (!hasOwn.call(expected, name))
				out.push(sub + ': not expected, found ' + show(found[name]));
			else
				diff(found[name], expected[name], sub, out);
		}
		if (isArray(expected) && found.length !== expected.length && out.length < MAX_DIFFS)
			out.push(path + '.length: expected ' + expected.length + ', found ' + found.length);
		return out;
	}

	/* ---- assertions */

	function fail(assertion, defaultMessage, custom, details) {
		var e = new Error(custom ? String(custom) : defaultMessage);
		e.name = 'Assertion';
		e.assertion = assertion;
		if (details)
			e.details = details;
		throw e;
	}

	function ok(v, msg) {
		if (!v)
			fail('ok', 'Expected value to be truthy, found ' + show(v), msg);
	}

	function is(found, expected, msg) {
		if (!(found === expected || (found !== found && expected !== expected)))
			fail('is', 'Expected values to be strictly equal: expected ' + show(expected) +
				', found ' + show(found), msg);
	}

	function equal(found, expected, msg) {
		if (!dequal(found, expected)) {
			var d = diff(found, expected, '', []);
			fail('equal', 'Expected values to be deeply equal: expected ' + show(expected) +
				', found ' + show(found) + '\n  ' + d.join('\n  '), msg, d);
		}
	}

	function type(v, t, msg) {
		if (typeof v !== t)
			fail('type', 'Expected "' + typeof v + '" to be "' + t + '"', msg);
	}

	function instance(v, C, msg) {
		if (!(v instanceof C))
			fail('instance', 'Expected value to be an instance of ' + show(C) + ', found ' +
				show(v), msg);
	}

	function matches(v, pattern) {
		return typeof pattern === 'string' ? String(v).indexOf(pattern) !== -1
						   : pattern.test(String(v));
	}

	function match(v, pattern, msg) {
		if (!matches(v, pattern))
			fail('match', 'Expected ' + show(v) + ' to match ' + show(pattern), msg);
	}

	function thrownMatches(e, expected) {
		if (expected === undefined)
			return true;
		if (typeof expected === 'function')
			return !!expected(e);
		var message = e && e.message !== undefined ? e.message : String(e);
		return matches(message, expected);
	}

	function throws(fn, expected, msg) {
		try {
			fn();
		} catch (e) {
			if (!thrownMatches(e, expected))
				fail('throws', 'Expected function to throw an error matching ' +
					show(expected) + ', it threw ' + show(e), msg);
			return;
		}
		fail('throws', 'Expected function to throw', msg);
	}

	function unreachable(msg) {
		fail('unreachable', 'Expected not to be reached!', msg);
	}

	function not(v, msg) {
		if (v)
			fail('not', 'Expected value to be falsy, found ' + show(v), msg);
	}
	not.ok = not;
	not.equal = function (found, expected, msg) {
		if (dequal(found, expected))
			fail('not.equal', 'Expected values not to be deeply equal: both are ' +
				show(found), msg);
	};
	not.type = function (v, t, msg) {
		if (typeof v === t)
			fail('not.type', 'Expected "' + typeof v + '" not to be "' + t + '"', msg);
	};
	not.instance = function (v, C, msg) {
		if (v instanceof C)
			fail('not.instance', 'Expected value not to be an instance of ' + show(C), msg);
	};
	not.match = function (v, pattern, msg) {
		if (matches(v, pattern))
			fail('not.match', 'Expected ' + show(v) + ' not to match ' + show(pattern), msg);
	};
	not.throws = function (fn, expected, msg) {
		try {
			fn();
		} catch (e) {
			if (expected === undefined || thrownMatches(e, expected))
				fail('not.throws', 'Expected function not to throw, it threw ' + show(e), msg);
		}
	};
	is.not = function (found, expected, msg) {
		if (found === expected || (found !== found && expected !== expected))
			fail('is.not', 'Expected values not to be strictly equal: both are ' +
				show(found), msg);
	};

	var assert = {
		ok: ok, is: is, equal: equal, type: type, instance: instance, match: match,
		throws: throws, unreachable: unreachable, not: not,
		/* uvu's string comparisons, for scripts written against it */
		snapshot: function (v, e, msg) { is(v, e, msg); },
		fixture: function (v, e, msg) { is(v, e, msg); }
	};

	/* ---- registering tests */

	var tests = [], only = false;
	var hooks = {before: [], after: [], beforeEach: [], afterEach: []};

	function register(name, fn, flag) {
		if (typeof fn !== 'function')
			throw new TypeError('test(name, fn): fn must be a function, got ' + show(fn));
		tests.push({name: String(name), fn: fn, skip: flag === 'skip', only: flag === 'only'});
		if (flag === 'only')
			only = true;
	}

	function test(name, fn) { register(name, fn, ''); }
	test.skip = function (name, fn) { register(name, fn || function () {}, 'skip'); };
	test.only = function (name, fn) { register(name, fn, 'only'); };
	/* uvu scripts end with test.run(); here the tests always run. */
	test.run = function () {};
	test.before = function (fn) { hooks.before.push(fn); };
	test.after = function (fn) { hooks.after.push(fn); };
	test.before.each = function (fn) { hooks.beforeEach.push(fn); };
	test.after.each = function (fn) { hooks.afterEach.push(fn); };

	/* ---- running them */

	/* Where in the submitted sources an error came from: the first stack
	 * frame that is not the harness. */
	function where(e) {
		var stack = e && typeof e.stack === 'string' ? e.stack : '';
		var m = /\((code\.js|tests\.js):(\d+)\)/.exec(stack);
		return m ? ' (' + m[1] + ':' + m[2] + ')' : '';
	}

	function describe(e) {
		if (e && e.name === 'Assertion')
			return e.message + where(e);
		if (e instanceof Error)
			return String(e) + where(e);
		return 'Uncaught ' + show(e);
	}

	/* A test (or hook) that returns a promise passes when it fulfils: the
	 * microtask queue is run empty, as no event loop would run it later. */
	function await_(result) {
		if (!result || typeof result.then !== 'function')
			return;
		var outcome = null;
		Promise.resolve(result).then(function () { outcome = {ok: true}; },
					     function (e) { outcome = {ok: false, error: e}; });
		internals.drain();
		if (!outcome)
			throw new Error('the promise never settled (there is no event loop to settle it)');
		if (!outcome.ok)
			throw outcome.error;
	}

	function runHooks(list) {
		for (var i = 0; i < list.length; i++)
			await_(list[i]());
	}

	function run() {
		var results = [], passed = 0, failed = 0, skipped = 0, i;
		var setup = null;
		try {
			runHooks(hooks.before);
		} catch (e) {
			setup = 'test.before failed: ' + describe(e);
		}
		for (i = 0; i < tests.length; i++) {
			var t = tests[i];
			if (t.skip || (only && !t.only)) {
				skipped++;
				results.push({name: t.name, passed: false, skipped: true, duration_ms: 0});
				continue;
			}
			var start = now(), error = setup;
			if (!error) {
				try {
					runHooks(hooks.beforeEach);
					await_(t.fn());
					runHooks(hooks.afterEach);
				} catch (e) {
					error = describe(e);
				}
			}
			var r = {name: t.name, passed: !error, duration_ms: now() - start};
			if (error) {
				r.error = error;
				failed++;
			} else {
				passed++;
			}
			results.push(r);
		}
		try {
			runHooks(hooks.after);
		} catch (e) {
			/* reported on every test would be noise: the summary says it */
			failed++;
			results.push({name: 'test.after', passed: false, error: describe(e),
				      duration_ms: 0});
		}
		return {
			summary: {total: results.length, passed: passed, failed: failed,
				  skipped: skipped},
			tests: results
		};
	}

	global.test = test;
	global.assert = assert;
	return run;
})
