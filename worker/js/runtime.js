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
		return nativeConstruct(F, list);
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

	/* name: what names fn instead of key (a private member's #name). */
	function accessor(obj, key, kind, fn, enumerable, name) {
		fname(fn, name === undefined ? key : name, kind);
		var d = hasOwn.call(obj, key) ? Object.getOwnPropertyDescriptor(obj, key) : null;
		var desc = {configurable: true, enumerable: enumerable};
		if (d && !hasOwn.call(d, 'value')) {
			desc.get = d.get;
			desc.set = d.set;
		}
		desc[kind] = fn;
		defineProperty(obj, key, desc);
	}

	/* ---- classes: construction, new.target and super */

	/*
	 * A lowered class constructor is an ES5 function the engine's own `new`
	 * calls with an object it made from the constructor's prototype. The
	 * parts of [[Construct]] that cannot ride on that are here: a derived
	 * constructor's `this` stays unbound until super() returns the object its
	 * parent made (the engine's natives, such as Map's or Array's, make their
	 * own), and a newTarget other than the function called (super() and
	 * Reflect.construct) travels in `pending`: set just before the
	 * constructor is applied to the object made for it, read by the
	 * constructor's first statement, restored after. Lowered constructors
	 * carry the hidden key CLASS.
	 */
	var CLASS = keys.fresh();
	var nativeConstruct = Reflect.construct, fnToString = Function.prototype.toString;
	var create = Object.create, getOwnDesc = Object.getOwnPropertyDescriptor;
	var pending = null; /* {self, nt, used} while a constructor is entered */

	function isEcmaFunction(F) {
		if (F[CLASS] === true)
			return true;
		try {
			return /\{ \[ecmascript code\] \}$/.test(fnToString.call(F));
		} catch (e) {
			return false;
		}
	}

	function protoFor(nt) {
		var p = nt.prototype;
		return isObject(p) ? p : Object.prototype;
	}

	/* Construct(F, list, nt): alloc is an object made from nt's prototype,
	 * used when F is ECMAScript code (as the engine's `new` would make one);
	 * a native F makes its own, which gets nt's prototype. */
	function constructWith(F, list, nt, alloc) {
		if (nt === F && !alloc)
			return nativeConstruct(F, list);
		if (isEcmaFunction(F)) {
			if (!alloc)
				alloc = create(protoFor(nt));
			var saved = pending, r;
			pending = {self: alloc, nt: nt, used: false};
			try {
				r = F.apply(alloc, list);
			} finally {
				pending = saved;
			}
			return isObject(r) ? r : alloc;
		}
		var o = nativeConstruct(F, list);
		if (nt !== F)
			setPrototypeOf(o, protoFor(nt));
		return o;
	}

	/* Reflect.construct with a newTarget, which the engine refuses. */
	var reflectConstruct = function construct(target, argumentsList) {
		var nt = arguments.length > 2 ? arguments[2] : target;
		if (typeof target !== 'function')
			throw new TypeError(describe(target) + ' is not a constructor');
		if (typeof nt !== 'function')
			throw new TypeError('newTarget ' + describe(nt) + ' is not a constructor');
		if (!isObject(argumentsList))
			throw new TypeError('Reflect.construct: argumentsList is not an object');
		var list = slice.call(argumentsList);
		return constructWith(target, list, nt, null);
	};
	defineProperty(Reflect, 'construct', {value: reflectConstruct, writable: true,
					      configurable: true, enumerable: false});

	/* A class constructor's first statement: its new.target, from the
	 * engine's `new` or from pending; a call without new throws. */
	function ctorCheck(self, nt, name) {
		if (nt !== undefined)
			return nt;
		if (pending && !pending.used && pending.self === self) {
			pending.used = true;
			return pending.nt;
		}
		throw new TypeError("Class constructor " + name + " cannot be invoked without 'new'");
	}

	/* new.target in an ordinary lowered function. */
	function newTarget(self, nt) {
		if (nt !== undefined)
			return nt;
		return pending && pending.self === self ? pending.nt : undefined;
	}

	/* Sets up class C (derived when it has a heritage, Super its value):
	 * the prototype object, non-writable as a class's is, and C's own
	 * prototype the parent. */
	function defineClass(C, derived, Super) {
		var parent = Object.prototype;
		if (derived) {
			if (Super === null) {
				parent = null;
			} else if (typeof Super !== 'function') {
				throw new TypeError('Class extends value ' + describe(Super) +
						    ' is not a constructor or null');
			} else {
				parent = Super.prototype;
				if (parent !== null && !isObject(parent))
					throw new TypeError('Class extends value does not have a valid ' +
							    'prototype property ' + describe(parent));
			}
		}
		defineProperty(C, 'prototype', {value: create(parent, {
			constructor: {value: C, writable: true, configurable: true}
		}), writable: false});
		if (derived && Super !== null)
			setPrototypeOf(C, Super);
		defineProperty(C, CLASS, {value: true});
	}

	/* super(...list) in a derived constructor F: constructs with F's
	 * current parent and newTarget nt (on alloc, the object the engine made,
	 * while it is unused); the caller binds this with bindThis. */
	function superCall(F, list, nt, alloc) {
		var Super = getPrototypeOf(F);
		if (typeof Super !== 'function')
			throw new TypeError('Super constructor ' + describe(Super) + ' is not a constructor');
		return constructWith(Super, list, nt, alloc || create(protoFor(nt)));
	}

	function bindThis(self, value) {
		if (self !== undefined)
			throw new ReferenceError('super() called twice in a derived constructor');
		return value;
	}

	function noThis() {
		throw new ReferenceError("must call super constructor in derived class before " +
					 "accessing 'this' or returning from derived constructor");
	}

	/* What a derived constructor returns: an object it returns, else its
	 * this, which must be bound. */
	function ctorReturn(v, self) {
		if (isObject(v))
			return v;
		if (v !== undefined)
			throw new TypeError('derived constructors may only return an object or undefined');
		return self === undefined ? noThis() : self;
	}

	/* ---- super properties: home is the method's home object, base its
	 * prototype when the reference is made */

	function toKey(k) {
		return typeof k === 'symbol' ? k : String(k);
	}

	function nullBase(base, key) {
		if (base === null)
			throw new TypeError('cannot use super.' + String(key) +
					    ': the home object has a null prototype');
	}

	function getFrom(base, key, self) {
		nullBase(base, key);
		for (var o = base; o !== null; o = getPrototypeOf(o)) {
			var d = getOwnDesc(o, key);
			if (d)
				return d.get ? d.get.call(self) : d.value;
		}
		return undefined;
	}

	/* OrdinarySet(base, key, v, self): false where it fails. */
	function setOn(base, key, v, self) {
		nullBase(base, key);
		for (var o = base; o !== null; o = getPrototypeOf(o)) {
			var d = getOwnDesc(o, key);
			if (!d)
				continue;
			if (hasOwn.call(d, 'value')) {
				if (!d.writable)
					return false;
				break;
			}
			if (!d.set)
				return false;
			d.set.call(self, v);
			return true;
		}
		if (!isObject(self))
			return false;
		var own = getOwnDesc(self, key);
		if (own) {
			if (!hasOwn.call(own, 'value') || !own.writable)
				return false;
			defineProperty(self, key, {value: v});
			return true;
		}
		if (!Object.isExtensible(self))
			return false;
		defineProperty(self, key, {value: v, writable: true, enumerable: true, configurable: true});
		return true;
	}

	/* super[key] read with this self. */
	function superGet(self, home, key) {
		var base = getPrototypeOf(home);
		return getFrom(base, toKey(key), self);
	}

	/* A super reference that is written (and perhaps read first). */
	function superRef(self, home, key) {
		return {self: self, base: getPrototypeOf(home), key: key, keyed: false};
	}

	function superDelete() {
		throw new ReferenceError('cannot delete a super property');
	}

	function refKey(r) {
		if (!r.keyed) {
			r.key = toKey(r.key);
			r.keyed = true;
		}
		return r.key;
	}

	function refGet(r) {
		return getFrom(r.base, refKey(r), r.self);
	}

	/* Writes v through the reference; a failed write throws in strict
	 * code. Returns v. */
	function superSet(r, v, strict) {
		if (!setOn(r.base, refKey(r), v, r.self) && strict)
			throw new TypeError('cannot assign to super property ' + String(r.key));
		return v;
	}

	/* Methods, getters and setters of a class: [key, fn, kind, name] in
	 * order, each function named after its key (or name when given). */
	function methods(obj, list) {
		for (var i = 0; i < list.length; i++) {
			var m = list[i];
			/* A computed key is converted once, for the name too. */
			var key = propertyKey(m[0]);
			if (m[2] === 'method') {
				var name = keyName(m.length > 3 ? m[3] : key);
				if (!hasOwn.call(m[1], 'name') || m[1].name !== name)
					fname(m[1], name);
				defineProperty(obj, key, {value: m[1], writable: true, configurable: true,
							 enumerable: false});
			} else {
				accessor(obj, key, m[2], m[1], false, m[3]);
			}
		}
	}

	/* A field: a data property (private ones hidden from enumeration). */
	function field(obj, key, value, hidden) {
		defineProperty(obj, key, {value: value, writable: true, configurable: true,
					  enumerable: !hidden});
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

	function generator(self, list, body, fn) {
		var o = Object.create(objectsProto(fn, GP));
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

	/* ---- function names */

	/* ToPropertyKey(v): a symbol, or a string. */
	function propertyKey(v) {
		if (isObject(v)) {
			var exotic = Symbol.toPrimitive ? v[Symbol.toPrimitive] : undefined;
			if (exotic != null) {
				v = exotic.call(v, 'string');
				if (isObject(v))
					throw new TypeError('cannot convert the key to a primitive');
			} else {
				return String(v);
			}
		}
		return typeof v === 'symbol' ? v : String(v);
	}

	/* The name a property key gives a function (SetFunctionName): a
	 * symbol's description in brackets. */
	function keyName(key) {
		if (typeof key === 'symbol') {
			var d = key.description;
			return d === undefined ? '' : '[' + d + ']';
		}
		return String(key);
	}

	/* fn named after key (a name, or a key: see keyName), prefix ("get",
	 * "set") before it: a top-level function of program code renamed
	 * inside the wrapper (see the lowering's globalize), or a function
	 * whose name the lowering could not give it by its syntax. */
	function fname(fn, key, prefix) {
		var name = keyName(key);
		defineProperty(fn, 'name', {value: prefix ? prefix + ' ' + name : name,
					    configurable: true});
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

	/* The async iterator of v, or its sync iterator with each value
	 * awaited, as for await has it. */
	function asyncIter(v) {
		if (v != null) {
			var method = v[ASYNC_ITERATOR];
			if (typeof method === 'function')
				return method.call(v);
		}
		var it = iter(v);
		return {
			next: function (x) {
				var s = it.next(x), done = s.done;
				return when(s.value, function (value) {
					return {value: value, done: done};
				});
			},
			'return': function (x) {
				if (typeof it['return'] === 'function')
					it['return'](x);
				return promiseResolve.call(PromiseC, {value: x, done: true});
			}
		};
	}

	/* for await left early: the iterator's return, awaited. */
	function closeAsync(it) {
		if (typeof it['return'] === 'function')
			awaitValue(it['return']());
	}

	function AsyncGen(self, list, body) {
		this.self = self;
		this.list = list;
		this.body = body;
		this.thread = null;
		this.state = 0; /* 0 not started, 1 at a yield, 2 running, 3 done */
		this.queue = [];
	}

	/* Serves queued next/throw/return requests while the body is not
	 * waiting on an await. */
	AsyncGen.prototype.pump = function () {
		while (this.queue.length && this.state !== 2) {
			var req = this.queue[0];
			if (this.state === 0 && req.mode !== 0)
				this.state = 3;
			if (this.state === 3) {
				this.queue.shift();
				if (req.mode === 1)
					req.reject(req.v);
				else
					req.resolve({value: req.mode === 2 ? req.v : undefined, done: true});
				continue;
			}
			if (this.state === 0) {
				var g = this;
				this.thread = new Thread(function () {
					return g.body.apply(g.self, g.list);
				});
			}
			this.resume(req.mode === 2 ? new Return(req.v) : req.v, req.mode !== 0);
		}
	};

	AsyncGen.prototype.resume = function (v, isError) {
		this.state = 2;
		var r, req = this.queue[0], g = this;
		try {
			r = Thread.resume(this.thread, v, isError);
		} catch (e) {
			this.state = 3;
			this.queue.shift();
			if (e instanceof Return)
				req.resolve({value: e.v, done: true});
			else
				req.reject(e);
			return;
		}
		if (r instanceof Awaited) {
			when(r.v, function (x) {
				g.resume(x, false);
				g.pump();
			}, function (e) {
				g.resume(e, true);
				g.pump();
			});
			return;
		}
		this.queue.shift();
		if (r instanceof Yielded) {
			this.state = 1;
			when(r.v, function (x) {
				req.resolve({value: x, done: false});
			}, req.reject);
		} else {
			this.state = 3;
			req.resolve({value: r, done: true});
		}
	};

	function AsyncGeneratorObject() {}
	var AGP = AsyncGeneratorObject.prototype;
	function asyncMethod(name, mode) {
		defineProperty(AGP, name, {writable: true, configurable: true, value: function (v) {
			var g = this[GEN];
			return new PromiseC(function (resolve, reject) {
				if (!g)
					throw new TypeError(name + ' called on an object that is not an async generator');
				g.queue.push({mode: mode, v: v, resolve: resolve, reject: reject});
				g.pump();
			});
		}});
	}
	asyncMethod('next', 0);
	asyncMethod('throw', 1);
	asyncMethod('return', 2);
	defineProperty(AGP, ASYNC_ITERATOR, {writable: true, configurable: true,
					    value: function () { return this; }});

	function asyncGenerator(self, list, body, fn) {
		var o = Object.create(objectsProto(fn, AGP));
		defineProperty(o, GEN, {value: new AsyncGen(self, list, body)});
		return o;
	}

	/* ---- generator functions */

	/* %GeneratorFunction.prototype% (or the async one): what generator
	 * functions inherit from; its prototype is their objects' default. */
	function functionProto(objects, tag) {
		var fp = Object.create(Function.prototype);
		defineProperty(fp, 'prototype', {value: objects, configurable: true});
		defineProperty(objects, 'constructor', {value: fp, configurable: true});
		if (Symbol.toStringTag)
			defineProperty(fp, Symbol.toStringTag, {value: tag, configurable: true});
		return fp;
	}
	var GFP = functionProto(GP, 'GeneratorFunction');
	var AGFP = functionProto(AGP, 'AsyncGeneratorFunction');
	var GENFN = keys.fresh();

	/* fn as a generator function (async: an async one), once: its own
	 * prototype a fresh object inheriting from its objects' default, no
	 * constructor in it; named after key (see fname) when given. */
	function genFn(fn, async, key, prefix) {
		if (arguments.length > 2)
			fname(fn, key, prefix);
		if (hasOwn.call(fn, GENFN))
			return fn;
		defineProperty(fn, GENFN, {value: true});
		defineProperty(fn, 'prototype', {value: Object.create(async ? AGP : GP)});
		setPrototypeOf(fn, async ? AGFP : GFP);
		return fn;
	}

	/* A generator or async function called with new (target its
	 * new.target): it is no constructor. */
	function notNew(target) {
		if (target !== undefined)
			throw new TypeError('not a constructor');
	}

	/* What a generator's objects inherit from: its prototype, when that
	 * is an object, else def (the generator object prototype). */
	function objectsProto(fn, def) {
		if (!fn)
			return def;
		if (!hasOwn.call(fn, GENFN))
			genFn(fn, def === AGP);
		var p = fn.prototype;
		return isObject(p) ? p : def;
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
		asyncIter: asyncIter,
		closeAsync: closeAsync,
		asyncGenerator: asyncGenerator,
		arr: arr,
		spread: spread,
		construct: construct,
		assign: assign,
		rest: rest,
		need: need,
		accessor: accessor,
		ctorCheck: ctorCheck,
		newTarget: newTarget,
		defineClass: defineClass,
		superCall: superCall,
		bindThis: bindThis,
		noThis: noThis,
		ctorReturn: ctorReturn,
		superRef: superRef,
		refGet: refGet,
		superSet: superSet,
		superDelete: superDelete,
		toKey: toKey,
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
		genFn: genFn,
		propertyKey: propertyKey,
		notNew: notNew,
		BREAK: BREAK
	});
})
