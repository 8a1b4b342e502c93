/*
 * runtime.js - what downlevelled scripts call: the helpers that lowered
 * ES2015+ code needs at run time (iteration, spread, classes, templates)
 * and the coroutines behind generators and async functions.
 *
 * Runs once, in the forkserver's prepared engine. ES5 only. Evaluates to a
 * function of Duktape's Thread constructor and the engine's hidden keys
 * returning the runtime object (frozen), which lowered code receives as a
 * parameter (see the engine's compile). Nothing here hands a script the
 * Thread constructor or a thread: a generator's state, its thread with it,
 * lives under keys.gen, a hidden symbol no script can name or list.
 *
 * Generators and async functions run their bodies in Duktape coroutines:
 * `yield` and `await` suspend the body's thread, so lowered code keeps its
 * shape (loops, try/finally, closures) and never becomes a state machine.
 * A coroutine cannot yield across a native call, which the lowering never
 * puts between a body and its yields.
 */
(function (Thread, keys) {
	'use strict';
	var ITERATOR = Symbol.iterator;
	var defineProperty = Object.defineProperty;
	var getPrototypeOf = Object.getPrototypeOf;
	var setPrototypeOf = Object.setPrototypeOf;
	var hasOwn = Object.prototype.hasOwnProperty;
	var isArray = Array.isArray;
	var arrayIterator = [][ITERATOR];
	var slice = Array.prototype.slice;
	var GEN = keys.gen, GROUPS = keys.groups;
	/* Promises as the engine made them, whatever a script does to the
	 * globals later: in test mode, code under test must not be able to
	 * settle the tests' async functions its own way. */
	var PromiseC = Promise, promiseResolve = Promise.resolve, promiseThen = Promise.prototype.then;
	function when(v, onValue, onError) {
		return promiseThen.call(promiseResolve.call(PromiseC, v), onValue, onError);
	}

	function isObject(v) {
		return v !== null && (typeof v === 'object' || typeof v === 'function');
	}

	function describe(v) {
		return typeof v === 'string' ? JSON.stringify(v) : String(v);
	}

	/* ---- iteration */

	/* One step object per array loop: only lowered code sees it. */
	function ArrayIter(a) {
		this.a = a;
		this.i = 0;
		this.step = {value: undefined, done: false};
	}
	ArrayIter.prototype.next = function () {
		var s = this.step;
		if (this.i < this.a.length) {
			s.value = this.a[this.i++];
		} else {
			s.value = undefined;
			s.done = true;
		}
		return s;
	};

	/* The iterator of v: arrays with their own iterator take a fast path. */
	function iter(v) {
		if (isArray(v) && v[ITERATOR] === arrayIterator)
			return new ArrayIter(v);
		if (v == null)
			throw new TypeError(describe(v) + ' is not iterable');
		var method = v[ITERATOR];
		if (typeof method !== 'function') {
			if (typeof v === 'string')
				return new ArrayIter(codePoints(v));
			if (Object.prototype.toString.call(v) === '[object Arguments]')
				return new ArrayIter(slice.call(v));
			throw new TypeError(describe(v) + ' is not iterable');
		}
		var it = method.call(v);
		if (!isObject(it))
			throw new TypeError('the iterator of ' + describe(v) + ' is not an object');
		return it;
	}

	function codePoints(s) {
		var out = [];
		for (var i = 0; i < s.length; i++) {
			var c = s.charCodeAt(i);
			if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
				var d = s.charCodeAt(i + 1);
				if (d >= 0xdc00 && d <= 0xdfff) {
					out.push(s.charAt(i) + s.charAt(i + 1));
					i++;
					continue;
				}
			}
			out.push(s.charAt(i));
		}
		return out;
	}

	/* An array of v's items, for destructuring: at most n of them (n < 0:
	 * all), so that a pattern never drains an endless iterator. */
	function arr(v, n) {
		if (isArray(v) && v[ITERATOR] === arrayIterator)
			return v;
		var it = iter(v), out = [], step;
		while ((n < 0 || out.length < n) && !(step = it.next()).done)
			out.push(step.value);
		if (n >= 0 && out.length === n && typeof it['return'] === 'function')
			it['return']();
		return out;
	}

	/* A fresh array of v's items, for spread. */
	function spread(v) {
		if (isArray(v) && v[ITERATOR] === arrayIterator) {
			/* Holes come out as undefined, as iteration gives them. */
			var out = new Array(v.length);
			for (var i = 0; i < v.length; i++)
				out[i] = v[i];
			return out;
		}
		return arr(v, -1);
	}

	function construct(F, list) {
		if (typeof F !== 'function')
			throw new TypeError(describe(F) + ' is not a constructor');
		var bound = Function.prototype.bind.apply(F, [null].concat(list));
		return new bound();
	}

	/* ---- objects */

	/* Object spread: own enumerable properties of each source, in order. */
	function assign(target) {
		for (var i = 1; i < arguments.length; i++) {
			var src = arguments[i];
			if (src == null)
				continue;
			src = Object(src);
			var keys = Object.keys(src);
			for (var k = 0; k < keys.length; k++)
				target[keys[k]] = src[keys[k]];
			var syms = Object.getOwnPropertySymbols(src);
			for (k = 0; k < syms.length; k++)
				if (Object.prototype.propertyIsEnumerable.call(src, syms[k]))
					target[syms[k]] = src[syms[k]];
		}
		return target;
	}

	/* {a, ...rest} = v: the properties of v other than those named. */
	function rest(v, names) {
		if (v == null)
			throw new TypeError('cannot destructure ' + describe(v));
		var out = {}, keys = Object.keys(Object(v));
		for (var i = 0; i < keys.length; i++)
			if (names.indexOf(keys[i]) < 0)
				out[keys[i]] = v[keys[i]];
		return out;
	}

	/* A pattern needs an object to read from. */
	function need(v) {
		if (v == null)
			throw new TypeError('cannot destructure ' + describe(v));
		return v;
	}

	function accessor(obj, key, kind, fn, enumerable) {
		var d = hasOwn.call(obj, key) ? Object.getOwnPropertyDescriptor(obj, key) : null;
		var desc = {configurable: true, enumerable: enumerable};
		if (d && !hasOwn.call(d, 'value')) {
			desc.get = d.get;
			desc.set = d.set;
		}
		desc[kind] = fn;
		defineProperty(obj, key, desc);
	}

	/* ---- classes */

	function classCheck(self, C, name) {
		if (!(self instanceof C))
			throw new TypeError("Class constructor " + name + " cannot be invoked without 'new'");
	}

	function inherits(C, Super) {
		if (Super !== null && typeof Super !== 'function')
			throw new TypeError('Class extends value ' + describe(Super) +
					    ' is not a constructor or null');
		C.prototype = Object.create(Super === null ? null : Super.prototype, {
			constructor: {value: C, writable: true, configurable: true}
		});
		if (Super !== null)
			setPrototypeOf(C, Super);
	}

	/* super(...args) in a derived constructor: runs the parent on self, or
	 * adopts what it returns (native parents such as Error and Array make
	 * their own object) with the derived prototype. */
	function superCall(self, Super, list) {
		var r = Super.apply(self, list);
		if (isObject(r) && r !== self) {
			setPrototypeOf(r, getPrototypeOf(self));
			return r;
		}
		return self;
	}

	/* Methods, getters and setters of a class: [key, fn, kind] in order. */
	function methods(obj, list) {
		for (var i = 0; i < list.length; i++) {
			var m = list[i];
			if (m[2] === 'method')
				defineProperty(obj, m[0], {value: m[1], writable: true, configurable: true,
							   enumerable: false});
			else
				accessor(obj, m[0], m[2], m[1], false);
		}
	}

	/* A field: a data property (private ones hidden from enumeration). */
	function field(obj, key, value, hidden) {
		defineProperty(obj, key, {value: value, writable: true, configurable: true,
					  enumerable: !hidden});
	}

	/* super.key with this as the receiver, for getters. */
	function superGet(home, key, self) {
		for (var o = home; o !== null; o = getPrototypeOf(o)) {
			var d = Object.getOwnPropertyDescriptor(o, key);
			if (d)
				return d.get ? d.get.call(self) : d.value;
		}
		return undefined;
	}

	/* #x on an object that has no such private member. */
	function priv(obj, key, name) {
		if (obj == null || !(key in Object(obj)))
			throw new TypeError('cannot read private member ' + name +
					    ' from an object whose class did not declare it');
		return obj;
	}

	/* ---- templates */

	/* One frozen strings array per template text (the specification has
	 * one per call site; nothing but identity tells them apart). */
	var templates = {};
	function template(cooked, raw) {
		var id = '$' + raw.join('\u0000');
		var t = hasOwn.call(templates, id) ? templates[id] : null;
		if (!t) {
			t = cooked.slice();
			defineProperty(t, 'raw', {value: Object.freeze(raw.slice())});
			templates[id] = t = Object.freeze(t);
		}
		return t;
	}

	/* ---- coroutines: generators and async functions */

	function Yielded(v) { this.v = v; }
	function Awaited(v) { this.v = v; }
	function Return(v) { this.v = v; }

	/* yield inside a generator body's thread. */
	function yieldValue(v) {
		return Thread.yield(new Yielded(v));
	}

	/* yield* inner: every step of inner, then its result. */
	function yieldStar(inner) {
		var it = iter(inner), sent, mode = 0;
		for (;;) {
			var step;
			if (mode === 1) {
				if (typeof it['throw'] !== 'function') {
					if (typeof it['return'] === 'function')
						it['return']();
					throw new TypeError('the delegated iterator has no throw method');
				}
				step = it['throw'](sent);
			} else {
				step = it.next(sent);
			}
			if (step.done)
				return step.value;
			try {
				sent = Thread.yield(new Yielded(step.value));
				mode = 0;
			} catch (e) {
				if (e instanceof Return) {
					if (typeof it['return'] === 'function')
						it['return'](e.v);
					throw e;
				}
				sent = e;
				mode = 1;
			}
		}
	}

	function Generator(self, list, body) {
		this.self = self;
		this.list = list;
		this.body = body;
		this.thread = null;
		this.state = 0; /* 0 not started, 1 suspended, 2 running, 3 done */
	}

	Generator.prototype.resume = function (v, mode) {
		if (this.state === 2)
			throw new TypeError('Generator is already running');
		if (this.state === 0 && mode !== 0)
			this.state = 3;
		if (this.state === 3) {
			if (mode === 1)
				throw v;
			return {value: mode === 2 ? v : undefined, done: true};
		}
		if (this.state === 0) {
			var g = this;
			this.thread = new Thread(function () {
				return g.body.apply(g.self, g.list);
			});
		}
		this.state = 2;
		var r;
		try {
			if (mode === 2)
				r = Thread.resume(this.thread, new Return(v), true);
			else
				r = Thread.resume(this.thread, v, mode === 1);
		} catch (e) {
			this.state = 3;
			this.thread = null;
			if (e instanceof Return)
				return {value: e.v, done: true};
			throw e;
		}
		if (r instanceof Yielded) {
			this.state = 1;
			return {value: r.v, done: false};
		}
		this.state = 3;
		this.thread = null;
		return {value: r, done: true};
	};

	function GeneratorObject() {}
	var GP = GeneratorObject.prototype;
	function method(name, mode) {
		defineProperty(GP, name, {writable: true, configurable: true, value: function (v) {
			var g = this[GEN];
			if (!g)
				throw new TypeError(name + ' called on an object that is not a generator');
			return g.resume(v, mode);
		}});
	}
	method('next', 0);
	method('throw', 1);
	method('return', 2);
	defineProperty(GP, ITERATOR, {writable: true, configurable: true,
				      value: function () { return this; }});
	if (Symbol.toStringTag)
		defineProperty(GP, Symbol.toStringTag, {configurable: true, value: 'Generator'});

	function generator(self, list, body) {
		var o = new GeneratorObject();
		defineProperty(o, GEN, {value: new Generator(self, list, body)});
		return o;
	}

	/* await inside an async body's thread. */
	function awaitValue(v) {
		return Thread.yield(new Awaited(v));
	}

	/* Runs body to its first await at once, as an async function does, and
	 * resumes it from a promise reaction after each: the microtask order is
	 * the one the specification gives. */
	function async(self, list, body) {
		return new PromiseC(function (resolve, reject) {
			var thread = new Thread(function () {
				return body.apply(self, list);
			});
			function step(v, isError) {
				var r;
				try {
					r = Thread.resume(thread, v, isError);
				} catch (e) {
					reject(e);
					return;
				}
				if (r instanceof Awaited)
					when(r.v, onValue, onError);
				else
					resolve(r);
			}
			function onValue(v) { step(v, false); }
			function onError(e) { step(e, true); }
			step(undefined, false);
		});
	}

	/* ---- regular expressions with named groups */

	var execNative = RegExp.prototype.exec, stringsPatched = false;

	function groupsOf(map, m) {
		var g = Object.create(null);
		for (var name in map)
			if (hasOwn.call(map, name))
				g[name] = m[map[name]];
		return g;
	}

	function namedExec(s) {
		var m = execNative.call(this, s);
		if (m)
			m.groups = groupsOf(this[GROUPS], m);
		return m;
	}

	/* String methods that run a regular expression inside the engine,
	 * taught about named groups; patched the first time a script makes
	 * such an expression, so that other scripts run the engine's own. */
	function patchStrings() {
		stringsPatched = true;
		var SP = String.prototype, match = SP.match, replace = SP.replace;
		defineProperty(SP, 'match', {writable: true, configurable: true, value: function (re) {
			if (re && re[GROUPS] && !re.global)
				return re.exec(String(this));
			return match.apply(this, arguments);
		}});
		defineProperty(SP, 'replace', {writable: true, configurable: true,
					       value: function (re, with_) {
			var map = re && re[GROUPS];
			if (!map)
				return replace.apply(this, arguments);
			if (typeof with_ === 'function') {
				var fn = with_;
				with_ = function () {
					var args = slice.call(arguments);
					args.push(groupsOf(map, args));
					return fn.apply(undefined, args);
				};
			} else {
				with_ = String(with_).replace(/\$<([^>]*)>/g, function (all, name) {
					return hasOwn.call(map, name) ? '$' + map[name] : '';
				});
			}
			return replace.call(this, re, with_);
		}});
	}

	function named(re, map) {
		if (!stringsPatched)
			patchStrings();
		defineProperty(re, GROUPS, {value: map});
		defineProperty(re, 'exec', {value: namedExec, writable: true, configurable: true});
		return re;
	}

	/* A top-level function of program code, renamed inside the wrapper
	 * (see the lowering's globalize), under its own name again. */
	function fname(fn, name) {
		defineProperty(fn, 'name', {value: name, configurable: true});
		return fn;
	}

	/* for-of left early: the iterator's return, when it has one. */
	function close(it) {
		if (typeof it['return'] === 'function')
			it['return']();
	}

	/* ---- async generators and for await */

	var ASYNC_ITERATOR = Symbol.asyncIterator;
	if (!ASYNC_ITERATOR) {
		ASYNC_ITERATOR = Symbol('Symbol.asyncIterator');
		defineProperty(Symbol, 'asyncIterator', {value: ASYNC_ITERATOR});
	}
	/* Calls as the specification's Call does, whatever a script puts on
	 * Function.prototype: a TypeError for what is not callable. */
	var apply = Reflect.apply;

	/* GetMethod: undefined when v has none (undefined or null there). */
	function getMethod(v, key, what) {
		var f = v[key];
		if (f == null)
			return undefined;
		if (typeof f !== 'function')
			throw new TypeError(what + ' is not a function');
		return f;
	}

	/* A promise of the engine's with its resolving functions. */
	function capability() {
		var d = {promise: null, resolve: null, reject: null};
		d.promise = new PromiseC(function (resolve, reject) {
			d.resolve = resolve;
			d.reject = reject;
		});
		return d;
	}

	function result(value, done) {
		return {value: value, done: done};
	}

	/* IteratorClose: after a throw (thrown) whatever return does is
	 * ignored, the throw goes on; otherwise its errors are the caller's
	 * and it must answer with an object. */
	function closeSync(it, thrown) {
		if (thrown) {
			try {
				var m = it['return'];
				if (m != null)
					apply(m, it, []);
			} catch (e) {
				/* the throw being handled wins */
			}
			return;
		}
		var f = getMethod(it, 'return', "the iterator's return");
		if (f !== undefined && !isObject(apply(f, it, [])))
			throw new TypeError("the iterator's return gave a non-object");
	}

	/* AsyncIteratorClose, in the body's thread: as closeSync, the result
	 * of return awaited. */
	function closeAsync(it, thrown) {
		if (thrown) {
			try {
				var m = it['return'];
				if (m != null)
					awaitValue(apply(m, it, []));
			} catch (e) {
				/* the throw being handled wins */
			}
			return;
		}
		var f = getMethod(it, 'return', "the iterator's return");
		if (f !== undefined && !isObject(awaitValue(apply(f, it, []))))
			throw new TypeError("the iterator's return gave a non-object");
	}

	/* CreateAsyncFromSyncIterator: the sync iterator it (next its next
	 * method) seen as an async one. Each step's value is awaited; a
	 * rejected value closes it (except for return). Only the runtime
	 * sees these objects. The methods pass their argument on only when
	 * they got one, as the specification's "if value is present". */
	function FromSync(it, next) {
		this.it = it;
		this.n = next;
	}
	FromSync.prototype.next = function (v) {
		var d = capability(), r;
		try {
			r = apply(this.n, this.it, arguments.length ? [v] : []);
			if (!isObject(r))
				throw new TypeError('the iterator result is not an object');
		} catch (e) {
			d.reject(e);
			return d.promise;
		}
		return fromSyncStep(this.it, r, d, true);
	};
	FromSync.prototype['return'] = function (v) {
		var d = capability(), it = this.it, r;
		try {
			var f = getMethod(it, 'return', "the iterator's return");
			if (f === undefined) {
				d.resolve(result(v, true));
				return d.promise;
			}
			r = apply(f, it, arguments.length ? [v] : []);
			if (!isObject(r))
				throw new TypeError("the iterator's return gave a non-object");
		} catch (e) {
			d.reject(e);
			return d.promise;
		}
		return fromSyncStep(it, r, d, false);
	};
	FromSync.prototype['throw'] = function (v) {
		var d = capability(), it = this.it, r;
		try {
			var f = getMethod(it, 'throw', "the iterator's throw");
			if (f === undefined) {
				/* It is closed first, then told of its protocol error. */
				closeSync(it, false);
				throw new TypeError('the iterator has no throw method');
			}
			r = apply(f, it, arguments.length ? [v] : []);
			if (!isObject(r))
				throw new TypeError("the iterator's throw gave a non-object");
		} catch (e) {
			d.reject(e);
			return d.promise;
		}
		return fromSyncStep(it, r, d, true);
	};

	/* AsyncFromSyncIteratorContinuation: d settled with r's value awaited. */
	function fromSyncStep(it, r, d, closeOnRejection) {
		var done, wrapper;
		try {
			done = !!r.done;
			var value = r.value;
			try {
				wrapper = promiseResolve.call(PromiseC, value);
			} catch (e) {
				if (!done && closeOnRejection)
					closeSync(it, true);
				throw e;
			}
		} catch (e2) {
			d.reject(e2);
			return d.promise;
		}
		promiseThen.call(wrapper, function (x) {
			d.resolve(result(x, done));
		}, done || !closeOnRejection ? d.reject : function (e) {
			closeSync(it, true);
			d.reject(e);
		});
		return d.promise;
	}

	/* GetIterator(v, async): an iterator record, {i: iterator, n: its
	 * next method read once}, of v's async iterator or else of its sync
	 * iterator seen as async. open and v serve for await (asyncStep). */
	function AsyncRecord(it, next) {
		this.i = it;
		this.n = next;
		this.open = false;
		this.v = undefined;
	}
	function asyncRecord(v) {
		var method = getMethod(v, ASYNC_ITERATOR, 'Symbol.asyncIterator');
		if (method === undefined) {
			var sync = iter(v);
			var w = new FromSync(sync, sync.next);
			return new AsyncRecord(w, w.next);
		}
		var it = apply(method, v, []);
		if (!isObject(it))
			throw new TypeError('the async iterator of ' + describe(v) + ' is not an object');
		return new AsyncRecord(it, it.next);
	}

	/* for await's next step, in the body's thread: true with the value in
	 * rec.v, false at the end. rec.open says the loop's body (or its
	 * binding) is under way, when leaving it closes the iterator. */
	function asyncStep(rec) {
		rec.open = false;
		var r = awaitValue(apply(rec.n, rec.i, []));
		if (!isObject(r))
			throw new TypeError('the iterator result is not an object');
		if (r.done)
			return false;
		rec.v = r.value;
		rec.open = true;
		return true;
	}

	/* A for await left by e thrown from its body: the iterator closed,
	 * e thrown on. A generator's return going through is no throw: then
	 * the close's own errors win. */
	function asyncAbort(rec, e) {
		if (rec.open) {
			rec.open = false;
			closeAsync(rec.i, !(e instanceof Return));
		}
		throw e;
	}

	/* A for await left by break, continue to an outer loop or return. */
	function asyncLeave(rec) {
		if (rec.open) {
			rec.open = false;
			closeAsync(rec.i, false);
		}
	}

	/* yield v in an async generator's body: v awaited, then given to the
	 * request it answers. Resumed by the next request: its value, its
	 * error thrown, or for a return its value awaited and returned (a
	 * Return thrown, which the body's catch clauses let through). */
	function asyncYield(v) {
		var r = Thread.yield(new Yielded(awaitValue(v)));
		if (r instanceof Return)
			throw new Return(awaitValue(r.v));
		return r;
	}

	/* One value of yield* given to its request: how the next request
	 * resumes the delegation, {m: 0 next, 1 throw, 2 return, v}. */
	function delegated(v) {
		var r;
		try {
			r = Thread.yield(new Yielded(v));
		} catch (e) {
			return {m: 1, v: e};
		}
		if (!(r instanceof Return))
			return {m: 0, v: r};
		try {
			return {m: 2, v: awaitValue(r.v)};
		} catch (e2) {
			return {m: 1, v: e2};
		}
	}

	/* yield* v in an async generator's body (ES2022 14.4.14): each request
	 * forwarded to v's async iterator, each of its results awaited, its
	 * values handed on as they are. */
	function asyncYieldStar(v) {
		var rec = asyncRecord(v), it = rec.i, received = {m: 0, v: undefined}, r;
		for (;;) {
			if (received.m === 0) {
				r = awaitValue(apply(rec.n, it, [received.v]));
			} else if (received.m === 1) {
				var thrower = getMethod(it, 'throw', "the delegated iterator's throw");
				if (thrower === undefined) {
					closeAsync(it, false);
					throw new TypeError('the delegated iterator has no throw method');
				}
				r = awaitValue(apply(thrower, it, [received.v]));
			} else {
				var returner = getMethod(it, 'return', "the delegated iterator's return");
				if (returner === undefined)
					throw new Return(awaitValue(received.v));
				r = awaitValue(apply(returner, it, [received.v]));
			}
			if (!isObject(r))
				throw new TypeError('the delegated iterator result is not an object');
			if (r.done) {
				var value = r.value;
				if (received.m === 2)
					throw new Return(value);
				return value;
			}
			received = delegated(r.value);
		}
	}

	/* A catch clause in a generator's body lets a return go through. */
	function passReturn(e) {
		if (e instanceof Return)
			throw e;
	}

	/* The state of an async generator (ES2022 27.6): its body's thread,
	 * its queue of requests {mode: 0 next, 1 throw, 2 return, v, resolve,
	 * reject}, settled oldest first. */
	var START = 0, AT_YIELD = 1, RUNNING = 2, DONE = 3, RETURNING = 4;

	function AsyncGen(self, list, body) {
		this.self = self;
		this.list = list;
		this.body = body;
		this.thread = null;
		this.state = START;
		this.queue = [];
	}

	/* A request arrives (AsyncGenerator.prototype.next, throw, return). */
	AsyncGen.prototype.request = function (mode, v, d) {
		var state = this.state;
		if (mode === 0 && state === DONE) {
			d.resolve(result(undefined, true));
			return;
		}
		if (mode === 1) {
			if (state === START)
				this.state = state = DONE;
			if (state === DONE) {
				d.reject(v);
				return;
			}
		}
		this.queue.push({mode: mode, v: v, resolve: d.resolve, reject: d.reject});
		if (mode === 2 && (state === START || state === DONE)) {
			this.awaitReturn();
		} else if (state === START) {
			var g = this;
			this.thread = new Thread(function () {
				return g.body.apply(g.self, g.list);
			});
			this.run(undefined, false);
		} else if (state === AT_YIELD) {
			this.run(mode === 2 ? new Return(v) : v, mode === 1);
		}
	};

	/* AsyncGeneratorCompleteStep: the oldest request settled. */
	AsyncGen.prototype.settle = function (isError, v, done) {
		var req = this.queue.shift();
		if (isError)
			req.reject(v);
		else
			req.resolve(result(v, done));
	};

	/* The body finished (or a return awaited): the oldest request gets
	 * how, the rest are answered as a finished generator answers them. */
	AsyncGen.prototype.finish = function (isError, v) {
		this.state = DONE;
		this.thread = null;
		this.settle(isError, v, true);
		while (this.queue.length) {
			var req = this.queue[0];
			if (req.mode === 2) {
				this.awaitReturn();
				return;
			}
			this.settle(req.mode === 1, req.mode === 1 ? req.v : undefined, true);
		}
	};

	/* AsyncGeneratorAwaitReturn: return(v) with no body to run it. */
	AsyncGen.prototype.awaitReturn = function () {
		var g = this, p;
		this.state = RETURNING;
		try {
			p = promiseResolve.call(PromiseC, this.queue[0].v);
		} catch (e) {
			this.finish(true, e);
			return;
		}
		promiseThen.call(p, function (x) { g.finish(false, x); },
				 function (e) { g.finish(true, e); });
	};

	/* Runs the body from where it stopped, given v (thrown if isError),
	 * until it awaits, yields with no request waiting, or ends. */
	AsyncGen.prototype.run = function (v, isError) {
		var g = this;
		this.state = RUNNING;
		for (;;) {
			var r;
			try {
				r = Thread.resume(this.thread, v, isError);
			} catch (e) {
				if (e instanceof Return)
					this.finish(false, e.v);
				else
					this.finish(true, e);
				return;
			}
			if (r instanceof Awaited) {
				try {
					promiseThen.call(promiseResolve.call(PromiseC, r.v),
							 function (x) { g.run(x, false); },
							 function (e) { g.run(e, true); });
					return;
				} catch (e) {
					/* PromiseResolve threw: the await throws it. */
					v = e;
					isError = true;
					continue;
				}
			}
			if (!(r instanceof Yielded)) {
				this.finish(false, r);
				return;
			}
			this.settle(false, r.v, false);
			if (!this.queue.length) {
				this.state = AT_YIELD;
				return;
			}
			/* A request came while it ran: it goes on at once. */
			var req = this.queue[0];
			v = req.mode === 2 ? new Return(req.v) : req.v;
			isError = req.mode === 1;
		}
	};

	/* %AsyncIteratorPrototype%, which %AsyncGeneratorPrototype% (AGP)
	 * inherits @@asyncIterator from. */
	var AIP = {};
	defineProperty(AIP, ASYNC_ITERATOR, {writable: true, configurable: true,
					    value: function () { return this; }});
	function AsyncGeneratorObject() {}
	var AGP = AsyncGeneratorObject.prototype;
	setPrototypeOf(AGP, AIP);
	if (Symbol.toStringTag)
		defineProperty(AGP, Symbol.toStringTag, {configurable: true, value: 'AsyncGenerator'});
	function asyncMethod(name, mode) {
		defineProperty(AGP, name, {writable: true, configurable: true, value: function (v) {
			var d = capability(), g = isObject(this) ? this[GEN] : undefined;
			if (g instanceof AsyncGen)
				g.request(mode, v, d);
			else
				d.reject(new TypeError(name + ' called on an object that is not an async generator'));
			return d.promise;
		}});
	}
	asyncMethod('next', 0);
	asyncMethod('throw', 1);
	asyncMethod('return', 2);

	function asyncGenerator(self, list, body) {
		var o = new AsyncGeneratorObject();
		defineProperty(o, GEN, {value: new AsyncGen(self, list, body)});
		return o;
	}

	/* The loop wrapper's answer for `break` (see the lowering of loops
	 * whose bindings closures capture). */
	var BREAK = Object.freeze({});

	return Object.freeze({
		iter: iter,
		close: close,
		named: named,
		namedGroups: function () {
			if (!stringsPatched)
				patchStrings();
		},
		asyncRecord: asyncRecord,
		asyncStep: asyncStep,
		asyncAbort: asyncAbort,
		asyncLeave: asyncLeave,
		asyncYield: asyncYield,
		asyncYieldStar: asyncYieldStar,
		passReturn: passReturn,
		asyncGenerator: asyncGenerator,
		arr: arr,
		spread: spread,
		construct: construct,
		assign: assign,
		rest: rest,
		need: need,
		accessor: accessor,
		classCheck: classCheck,
		inherits: inherits,
		superCall: superCall,
		methods: methods,
		field: field,
		superGet: superGet,
		priv: priv,
		template: template,
		yieldValue: yieldValue,
		yieldStar: yieldStar,
		generator: generator,
		awaitValue: awaitValue,
		async: async,
		fname: fname,
		BREAK: BREAK
	});
})
