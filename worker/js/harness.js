/*
 * harness.js - the globals of test mode: test() and assert, after uvu.
 *
 * Compiled and called once in the forkserver, before any script exists:
 * everything the harness uses of the built-ins (Array, Object, JSON,
 * String, Date, RegExp, Error, Promise, Function.prototype.call itself) is
 * captured here, as functions that no later change to a global or a
 * prototype reaches. It evaluates to install(global), which a test-mode
 * worker calls to define `test` and `assert` (frozen, and neither writable
 * nor configurable on the global) and which returns the controls the
 * engine drives: begin("code" | "tests") before each source runs, and
 * run() for the results once both have loaded.
 *
 * Tests, and hooks, can be registered only while the tests load: not by
 * the code under test as it loads, nor once the tests run. The results are
 * built of objects without a prototype, in arrays added to by
 * defineProperty: no setter or getter a script puts on Array.prototype or
 * Object.prototype (nor a toJSON) can add, drop or change an entry, and the
 * engine counts the summary from the entries itself. ES5 only: this runs
 * on Duktape 2.7.
 */
(function (internals) {
	'use strict';
	/* uncurry(f)(self, a, b) is f.call(self, a, b), without looking up
	 * call on anything a script can change. */
	var FP = Function.prototype;
	var uncurry = FP.bind.bind(FP.call);
	var hasOwn = uncurry(Object.prototype.hasOwnProperty);
	var strSlice = uncurry(String.prototype.slice);
	var strIndexOf = uncurry(String.prototype.indexOf);
	var arrJoin = uncurry(Array.prototype.join);
	var reExec = uncurry(RegExp.prototype.exec);
	var reTest = uncurry(RegExp.prototype.test);
	var reToString = uncurry(RegExp.prototype.toString);
	var reSource = uncurry(Object.getOwnPropertyDescriptor(RegExp.prototype, 'source').get);
	var dateGetTime = uncurry(Date.prototype.getTime);
	var dateToISO = uncurry(Date.prototype.toISOString);
	var errToString = uncurry(Error.prototype.toString);
	var stackOf = uncurry(Object.getOwnPropertyDescriptor(Error.prototype, 'stack').get);
	var now = Date.now;
	var stringify = JSON.stringify;
	var keys = Object.keys;
	var isArray = Array.isArray;
	var getProto = Object.getPrototypeOf;
	var create = Object.create;
	var defineProperty = Object.defineProperty;
	var freeze = Object.freeze, isFrozen = Object.isFrozen;
	var isFinite_ = isFinite;
	var StringC = String, ErrorC = Error, TypeErrorC = TypeError, RangeErrorC = RangeError;
	var promiseResolve = Promise.resolve.bind(Promise);
	var inspect = internals.inspect, loop = internals.loop;

	var MAX_SHOWN = 200; /* characters of a value in a message */
	var MAX_DIFFS = 5;   /* differing paths listed for deep equality */
	/* Entries a report may hold (CTL_TESTS_MAX in protocol/ctl.h): the
	 * tests, and one for a failed test.after. */
	var MAX_ENTRIES = 10000;

	/* A list only the harness adds to. */
	function append(list, v) {
		defineProperty(list, list.length, {value: v, writable: true, enumerable: true,
						   configurable: true});
	}

	/* An object without a prototype holding the given own properties. */
	function record(props) {
		var o = create(null), names = keys(props);
		for (var i = 0; i < names.length; i++)
			o[names[i]] = props[names[i]];
		return o;
	}

	/* v is a Date, a RegExp: asked of the engine, not of anything a script
	 * can redefine (instanceof consults Symbol.hasInstance). */
	function isDate(v) {
		try {
			dateGetTime(v);
			return true;
		} catch (e) {
			return false;
		}
	}
	function isRegExp(v) {
		if (v === RegExpProto)
			return false;
		try {
			reSource(v);
			return true;
		} catch (e) {
			return false;
		}
	}
	var RegExpProto = RegExp.prototype;
	function isError(v) {
		try {
			errToString(v);
		} catch (e) {
			return false;
		}
		return v !== null && typeof v === 'object' && v instanceof ErrorC;
	}

	/* ---- showing values */

	function cut(s) {
		s = StringC(s);
		return s.length > MAX_SHOWN ? strSlice(s, 0, MAX_SHOWN) + '...' : s;
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
		try {
			if (isRegExp(v))
				return cut(reToString(v));
			if (isDate(v))
				return 'Date(' + (isFinite_(dateGetTime(v)) ? dateToISO(v) : 'Invalid') + ')';
			if (isError(v))
				return cut(StringC(v));
			var s = stringify(v);
			return cut(s === undefined ? StringC(v) : s);
		} catch (e) {
			try {
				return cut(StringC(v)); /* a cycle */
			} catch (e2) {
				return '[a value that cannot be shown]';
			}
		}
	}

	/* ---- deep equality, as uvu's (dequal) */

	function dequal(a, b) {
		if (a === b)
			return true;
		if (a && b && typeof a === 'object' && typeof b === 'object') {
			if (a.constructor !== b.constructor || getProto(a) !== getProto(b))
				return false;
			var da = isDate(a);
			if (da !== isDate(b))
				return false;
			if (da) {
				var ta = dateGetTime(a), tb = dateGetTime(b);
				return ta === tb || (ta !== ta && tb !== tb);
			}
			var ra = isRegExp(a);
			if (ra !== isRegExp(b))
				return false;
			if (ra)
				return reToString(a) === reToString(b);
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
				if (!hasOwn(b, ka[k]) || !dequal(a[ka[k]], b[ka[k]]))
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
			getProto(found) === getProto(expected) && !isDate(found) && !isRegExp(found);
		if (!both) {
			append(out, (path || '(root)') + ': expected ' + show(expected) + ', found ' +
			       show(found));
			return out;
		}
		var names = keys(expected), seen = create(null), i;
		for (i = 0; i < names.length; i++)
			seen[names[i]] = true;
		var extra = keys(found);
		for (i = 0; i < extra.length; i++)
			if (!seen[extra[i]])
				append(names, extra[i]);
		for (i = 0; i < names.length && out.length < MAX_DIFFS; i++) {
			var name = names[i];
			var sub = isArray(expected) ? path + '[' + name + ']' : path + '.' + name;
			if (!hasOwn(found, name))
				append(out, sub + ': expected ' + show(expected[name]) + ', missing');
			else if (!hasOwn(expected, name))
				append(out, sub + ': not expected, found ' + show(found[name]));
			else
				diff(found[name], expected[name], sub, out);
		}
		if (isArray(expected) && found.length !== expected.length && out.length < MAX_DIFFS)
			append(out, path + '.length: expected ' + expected.length + ', found ' +
			       found.length);
		return out;
	}

	/* ---- assertions */

	/* The harness's own error: marked where no script can forge the mark. */
	var assertions = [];
	function fail(assertion, defaultMessage, custom, details) {
		var e = new ErrorC(custom ? StringC(custom) : defaultMessage);
		defineProperty(e, 'name', {value: 'Assertion', writable: true, configurable: true});
		defineProperty(e, 'assertion', {value: assertion, writable: true, configurable: true});
		if (details)
			defineProperty(e, 'details', {value: details, writable: true, configurable: true});
		append(assertions, e);
		throw e;
	}
	function isAssertion(e) {
		for (var i = assertions.length - 1; i >= 0; i--)
			if (assertions[i] === e)
				return true;
		return false;
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
		if (isRegExp(pattern))
			return reTest(pattern, StringC(v));
		return strIndexOf(StringC(v), StringC(pattern)) !== -1;
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
		var message = e && e.message !== undefined ? e.message : StringC(e);
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

	/* Which source is loading: "code", "tests", or "" (nothing loads: the
	 * tests run, or test mode has not begun). */
	var phase = '';
	var tests = [], only = false;
	var hooks = record({before: [], after: [], beforeEach: [], afterEach: []});

	function registering(what) {
		if (phase !== 'tests')
			throw new TypeErrorC(what + ' registers tests only while the tests load, ' +
					     (phase === 'code' ? 'not from the code under test'
							       : 'not once they run'));
	}

	function register(name, fn, flag) {
		registering(flag ? 'test.' + flag + '()' : 'test()');
		if (typeof fn !== 'function')
			throw new TypeErrorC('test(name, fn): fn must be a function, got ' + show(fn));
		if (tests.length + (hooks.after.length ? 1 : 0) >= MAX_ENTRIES)
			throw new RangeErrorC('at most ' + MAX_ENTRIES + ' tests can be registered ' +
					      '(one less with a test.after hook)');
		append(tests, record({name: StringC(name), fn: fn, skip: flag === 'skip',
				      only: flag === 'only'}));
		if (flag === 'only')
			only = true;
	}

	function hook(list, what) {
		return function (fn) {
			registering(what);
			if (typeof fn !== 'function')
				throw new TypeErrorC(what + ': the argument must be a function, got ' +
						     show(fn));
			if (list === 'after' && !hooks.after.length && tests.length >= MAX_ENTRIES)
				throw new RangeErrorC('at most ' + MAX_ENTRIES + ' tests can be ' +
						      'registered (one less with a test.after hook)');
			append(hooks[list], fn);
		};
	}

	function test(name, fn) { register(name, fn, ''); }
	test.skip = function (name, fn) { register(name, fn || function () {}, 'skip'); };
	test.only = function (name, fn) { register(name, fn, 'only'); };
	/* uvu scripts end with test.run(); here the tests always run. */
	test.run = function () {};
	test.before = hook('before', 'test.before()');
	test.after = hook('after', 'test.after()');
	test.before.each = hook('beforeEach', 'test.before.each()');
	test.after.each = hook('afterEach', 'test.after.each()');

	/* ---- running them */

	/* Where in the submitted sources an error came from: the first stack
	 * frame that is not the harness. */
	var WHERE = /\((code\.js|tests\.js):(\d+)\)/;
	function where(e) {
		var stack = '';
		try {
			stack = isError(e) ? stackOf(e) : '';
		} catch (x) {
			stack = '';
		}
		var m = typeof stack === 'string' ? reExec(WHERE, stack) : null;
		return m ? ' (' + m[1] + ':' + m[2] + ')' : '';
	}

	/* What a failed test says. Whether it failed is decided where the
	 * exception was caught, never from this text: whatever was thrown
	 * (undefined, an error whose toString gives "" or throws, a Proxy)
	 * fails the test, and a text that cannot be made, or is empty, is
	 * replaced by a fixed one. */
	var UNSHOWABLE = 'threw a value that cannot be shown';
	function describe(e) {
		var text = '', at = '';
		try {
			if (isAssertion(e))
				text = e.message;
			else if (isError(e))
				text = errToString(e);
			else
				text = 'Uncaught ' + show(e);
		} catch (x) {
			text = '';
		}
		try {
			at = where(e);
		} catch (x) {
			at = '';
		}
		if (typeof text !== 'string' || text === '' || text === 'Uncaught ')
			text = UNSHOWABLE;
		return text + (typeof at === 'string' ? at : '');
	}

	/* A test (or hook) that returns a promise passes when it fulfils: the
	 * event loop (timers.js) runs until it has settled, or until nothing is
	 * left to run. The promise's state is read from the engine's promise
	 * itself (a thenable first becomes one), not through its then. */
	function await_(result) {
		if (result === null || (typeof result !== 'object' && typeof result !== 'function'))
			return;
		var state = inspect(result);
		if (state === undefined) {
			if (typeof result.then !== 'function')
				return;
			result = promiseResolve(result);
		}
		loop.until(result);
		state = inspect(result);
		if (state.state === 'pending')
			throw new ErrorC('the promise never settled (nothing was left to run that could ' +
					 'settle it)');
		if (state.state === 'rejected')
			throw state.value;
	}

	function runHooks(list) {
		for (var i = 0; i < list.length; i++) {
			var fn = list[i]; /* called without the list as its this */
			await_(fn());
		}
	}

	/* The entries, in registration order: {name, passed, skipped?,
	 * duration_ms, error?}, each without a prototype. */
	function run() {
		phase = '';
		var results = [], i;
		/* threw: set in the catch itself, so that nothing the value
		 * thrown does can turn a failure into a pass. */
		var setupThrew = false, setup = null;
		try {
			runHooks(hooks.before);
		} catch (e) {
			setupThrew = true;
			setup = 'test.before failed: ' + describe(e);
		}
		for (i = 0; i < tests.length; i++) {
			var t = tests[i];
			if (t.skip || (only && !t.only)) {
				append(results, record({name: t.name, passed: false, skipped: true,
							duration_ms: 0}));
				continue;
			}
			var start = now(), threw = setupThrew, error = setup;
			if (!threw) {
				try {
					runHooks(hooks.beforeEach);
					var fn = t.fn;
					await_(fn());
					runHooks(hooks.afterEach);
				} catch (e) {
					threw = true;
					error = describe(e);
				}
			}
			var r = record({name: t.name, passed: threw !== true, duration_ms: now() - start});
			if (threw)
				r.error = error;
			append(results, r);
		}
		try {
			runHooks(hooks.after);
		} catch (e) {
			/* reported on every test would be noise: an entry says it */
			append(results, record({name: 'test.after', passed: false,
						error: 'test.after failed: ' + describe(e),
						duration_ms: 0}));
		}
		/* What the tests left (timers, immediates) runs as Node would run
		 * it; what it throws is an uncaught exception, the run's failure. */
		loop.run(undefined);
		return results;
	}

	/* Freezes o and every function and object it holds, as far down as
	 * they go (the harness's own: test, assert and their members). */
	function deepFreeze(o) {
		if (isFrozen(o))
			return; /* not.ok is not itself */
		freeze(o);
		var names = keys(o);
		for (var i = 0; i < names.length; i++) {
			var v = o[names[i]];
			if (v !== null && (typeof v === 'object' || typeof v === 'function'))
				deepFreeze(v);
		}
	}

	var controls = freeze({
		begin: function (source) { phase = source; },
		run: run
	});

	return function install(global) {
		deepFreeze(test);
		deepFreeze(assert);
		defineProperty(global, 'test', {value: test, writable: false, enumerable: false,
						 configurable: false});
		defineProperty(global, 'assert', {value: assert, writable: false, enumerable: false,
						   configurable: false});
		return controls;
	};
})
