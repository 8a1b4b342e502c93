/*
 * runtime.js - what downlevelled scripts call: the helpers that lowered
 * ES2015+ code needs at run time (iteration, spread, classes, templates)
 * and the coroutines behind generators and async functions.
 *
 * Runs once, in the forkserver's prepared engine. ES5 only. Evaluates to a
 * function of Duktape's Thread constructor, the engine's hidden keys and
 * the lowering (for eval and Function, below) returning the runtime object
 * (frozen), which lowered code receives as a
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
(function (Thread, keys, lower) {
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

	/* A fresh array of v's items, for spread. */
	function spread(v) {
		if (isArray(v) && v[ITERATOR] === arrayIterator) {
			/* Holes come out as undefined, as iteration gives them. */
			var out = new Array(v.length);
			for (var i = 0; i < v.length; i++)
				out[i] = v[i];
			return out;
		}
		return new Record(v).r();
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

	/* A pattern needs an object to read from. */
	function need(v) {
		if (v == null)
			throw new TypeError('cannot destructure ' + describe(v));
		return v;
	}

	/* __proto__: v in an object literal. */
	function proto(obj, v) {
		if (isObject(v) || v === null)
			setPrototypeOf(obj, v);
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
	var CLASS = keys.cls;
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
		return getFrom(base, propertyKey(key), self);
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
			r.key = propertyKey(r.key);
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
			var m = list[i], key = propertyKey(m[0]); /* a computed key, converted once */
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

	/* ---- private names
	 *
	 * Each evaluation of a class makes one record per private name it
	 * declares (pnames), so brands are per evaluation: {key, name, kind,
	 * fn, get, set}. key is a hidden symbol (keys.fresh), which no script
	 * can name and no reflection lists (getOwnPropertyNames, ownKeys,
	 * Proxy traps, JSON, Object.assign, spread). An object that has the
	 * member holds key: a field as a box {v, o} (so that freezing the
	 * object leaves the field writable, as a private field is), a method
	 * or an accessor as true (its brand; the functions are the record's).
	 * Duktape applies hidden keys to a Proxy itself when defining and
	 * asking for own properties, but reads them from its target: a box
	 * names the object it belongs to, and one read from elsewhere is
	 * looked up again as an own property. */

	var PRIVATE_KINDS = {f: 'field', m: 'method', a: 'accessor'};

	/* The records of a class evaluation's private names: spec holds each
	 * as its kind's letter (f, m, a) and the name, separated by spaces. */
	function pnames(spec) {
		var list = spec.split(' ');
		for (var i = 0; i < list.length; i++)
			list[i] = {key: keys.fresh(), name: list[i].slice(1),
				   kind: PRIVATE_KINDS[list[i].charAt(0)], fn: undefined, get: undefined,
				   set: undefined};
		return list;
	}

	/* A private method or accessor's function, where the class defines it. */
	function pdef(P, fn, kind) {
		fname(fn, P.name, kind === 'get' || kind === 'set' ? kind : null);
		if (kind === 'get')
			P.get = fn;
		else if (kind === 'set')
			P.set = fn;
		else
			P.fn = fn;
	}

	function pmissing(o, P, what) {
		if (!isObject(o) || !hasOwn.call(o, P.key))
			throw new TypeError('Cannot ' + what + ' private member ' + P.name +
					    ' on an object whose class did not declare it');
	}

	/* A private field's initialisation (its value already computed). */
	function padd(o, P, value) {
		if (hasOwn.call(o, P.key))
			throw new TypeError('Cannot initialize ' + P.name + ' twice on the same object');
		defineProperty(o, P.key, {value: {v: value, o: o}});
	}

	/* The box of a field o has (pmissing checked that it has it). */
	function pbox(o, P) {
		var box = o[P.key];
		return box && box.o === o ? box : Object.getOwnPropertyDescriptor(o, P.key).value;
	}

	/* The brands of a class's private methods and accessors, on a new
	 * instance (or, for static ones, on the class). */
	function pbrand(o, list) {
		for (var i = 0; i < list.length; i++) {
			if (hasOwn.call(o, list[i].key))
				throw new TypeError('Cannot initialize private methods of class ' +
						    'twice on the same object');
			defineProperty(o, list[i].key, {value: true});
		}
	}

	/* o.#x */
	function pget(o, P) {
		pmissing(o, P, 'read');
		if (P.kind === 'field')
			return pbox(o, P).v;
		if (P.kind === 'method')
			return P.fn;
		if (!P.get)
			throw new TypeError("'" + P.name + "' was defined without a getter");
		return P.get.call(o);
	}

	/* o.#x = value: the value. */
	function pset(o, P, value) {
		pmissing(o, P, 'write');
		if (P.kind === 'field')
			pbox(o, P).v = value;
		else if (P.kind === 'method')
			throw new TypeError('Private method ' + P.name + ' is not writable');
		else if (!P.set)
			throw new TypeError("'" + P.name + "' was defined without a setter");
		else
			P.set.call(o, value);
		return value;
	}

	/* #x in o */
	function pin(P, o) {
		if (!isObject(o))
			throw new TypeError("Cannot use 'in' operator to search for '" + P.name +
					    "' in " + describe(o));
		return hasOwn.call(o, P.key);
	}

	/* ---- templates */

	/* The frozen strings array of a template call site, made once per
	 * site (the lowering keeps it in a variable of the script's own).
	 * Duktape's freeze leaves an array's length writable; it is made
	 * read-only first. */
	function frozen(a) {
		defineProperty(a, 'length', {writable: false});
		return Object.freeze(a);
	}
	function template(cooked, raw) {
		var t = cooked.slice();
		defineProperty(t, 'raw', {value: frozen(raw.slice())});
		return frozen(t);
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
	/* What yield* in a generator hands its caller: the delegate's own
	 * result object, as it is (ES2022 14.4.14, GeneratorYield(innerResult)). */
	function Passed(r) { this.r = r; }

	/* yield* in a generator (ES2022 14.4.14, sync): the delegate's next
	 * method read once; its results (which must be objects) handed through
	 * untouched, their value read only at the end; throw() and return()
	 * forwarded to the delegate's methods of those names, a delegate
	 * without throw closed and a TypeError thrown, one without return
	 * left as the generator returns. */
	function yieldStar(inner) {
		var method = inner == null ? undefined : inner[ITERATOR], it;
		if (typeof method === 'function') {
			it = apply(method, inner, []);
			if (!isObject(it))
				throw new TypeError('the iterator of ' + describe(inner) + ' is not an object');
		} else {
			it = iter(inner); /* strings and arguments the engine has no iterator for */
		}
		var next = it.next, received, mode = 0, r, f;
		for (;;) {
			if (mode === 0) {
				r = apply(next, it, [received]);
			} else if (mode === 1) {
				f = it['throw'];
				if (f == null) {
					f = it['return'];
					if (f != null && !isObject(apply(f, it, [])))
						throw new TypeError('the delegated iterator\'s return result is not an object');
					throw new TypeError('the delegated iterator has no throw method');
				}
				r = apply(f, it, [received]);
			} else {
				f = it['return'];
				if (f == null)
					throw received;
				r = apply(f, it, [received.v]);
			}
			if (!isObject(r))
				throw new TypeError('the delegated iterator result is not an object');
			if (r.done) {
				if (mode === 2)
					throw new Return(r.value);
				return r.value;
			}
			if (it instanceof ArrayIter)
				r = {value: r.value, done: false};
			try {
				received = Thread.yield(new Passed(r));
				mode = 0;
			} catch (e) {
				received = e;
				mode = e instanceof Return ? 2 : 1;
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
		if (r instanceof Passed) {
			this.state = 1;
			return r.r;
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

	/* ToPropertyKey (ES2022 7.1.19): ToPrimitive with the hint string
	 * (Symbol.toPrimitive, else toString then valueOf), a symbol kept, the
	 * rest made a string. The one conversion of every computed key. */
	function propertyKey(v) {
		if (isObject(v)) {
			var exotic = Symbol.toPrimitive ? v[Symbol.toPrimitive] : undefined;
			if (exotic != null) {
				if (typeof exotic !== 'function')
					throw new TypeError('Symbol.toPrimitive of the key is not a function');
				v = exotic.call(v, 'string');
			} else {
				var f = v.toString;
				var r = typeof f === 'function' ? f.call(v) : v;
				if (isObject(r)) {
					f = v.valueOf;
					r = typeof f === 'function' ? f.call(v) : v;
				}
				v = r;
			}
			if (isObject(v))
				throw new TypeError('cannot convert the key to a primitive');
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

	/* ---- iterator records: destructuring, for-of and spread, step by step
	 *
	 * A record is the specification's Iterator Record: the iterator, its
	 * next method read once, and whether it is done. Destructuring takes a
	 * value per element (s), the rest (r), and closes the iterator at the
	 * end (e) or when an element throws (abort), so that an iterator left
	 * unfinished hears of it as ES2022 has it. An array whose iterator is
	 * Array.prototype's is read by index, which nothing can tell apart.
	 * apply calls as the specification's Call does, whatever a script puts
	 * on Function.prototype: a TypeError for what is not callable. */
	var apply = Reflect.apply;

	function Record(v) {
		this.i = 0;
		this.done = false;
		if (isArray(v) && v[ITERATOR] === arrayIterator) {
			this.a = v;
			this.it = this.next = null;
			return;
		}
		if (v == null)
			throw new TypeError(describe(v) + ' is not iterable');
		var method = v[ITERATOR];
		if (method == null && Object.prototype.toString.call(v) === '[object Arguments]') {
			this.a = v;
			this.it = this.next = null;
			return;
		}
		if (typeof method !== 'function')
			throw new TypeError(describe(v) + ' is not iterable');
		var it = apply(method, v, []);
		if (!isObject(it))
			throw new TypeError('the iterator of ' + describe(v) + ' is not an object');
		this.a = null;
		this.it = it;
		this.next = it.next;
	}

	/* IteratorStep and IteratorValue: the next value, undefined once done.
	 * The record is done while the step runs, so that a step that throws
	 * leaves it done, and the iterator is not closed. */
	Record.prototype.s = function () {
		if (this.done)
			return undefined;
		this.done = true;
		if (this.a) {
			if (this.i >= this.a.length)
				return undefined;
			this.done = false;
			return this.a[this.i++];
		}
		var r = apply(this.next, this.it, []);
		if (!isObject(r))
			throw new TypeError('the iterator result ' + describe(r) + ' is not an object');
		if (r.done)
			return undefined;
		var v = r.value;
		this.done = false;
		return v;
	};

	/* The values left, as a fresh array (a rest element, spread). */
	Record.prototype.r = function () {
		var out = [];
		for (;;) {
			var v = this.s();
			if (this.done)
				return out;
			out.push(v);
		}
	};

	/* IteratorClose after a normal completion (or break, return): return's
	 * errors and a result that is not an object are thrown. */
	Record.prototype.e = function () {
		if (this.done)
			return;
		this.done = true;
		if (this.a)
			return;
		var it = this.it, f = it['return'];
		if (f == null)
			return;
		if (typeof f !== 'function')
			throw new TypeError('the iterator\'s return is not a function');
		var r = apply(f, it, []);
		if (!isObject(r))
			throw new TypeError('the iterator\'s return gave ' + describe(r) +
					    ', not an object');
	};

	/* The record of v for for-of. */
	function iterate(v) {
		return new Record(v);
	}

	/* The record of v for an array pattern, or v itself when it is an
	 * array read by index: the pattern then reads its elements inline
	 * (see the lowering's destructure), and pays no call per element. */
	function record(v) {
		if (isArray(v) && v[ITERATOR] === arrayIterator)
			return v;
		return new Record(v);
	}

	/* A rest element of an array read by index: a fresh array of a's
	 * elements from i, holes as undefined. */
	function tail(a, i) {
		var n = a.length - i, out = new Array(n > 0 ? n : 0);
		for (var k = 0; k < n; k++)
			out[k] = a[i + k];
		return out;
	}

	/* IteratorClose after a throw: each record of list still open (the
	 * innermost last) is closed, whatever its return does, and e is thrown
	 * again. A generator's return (a Return thrown through its body) is a
	 * return completion: return's errors then replace it, as after a
	 * normal completion. */
	function abort(e, list) {
		var returning = e instanceof Return;
		for (var i = list.length - 1; i >= 0; i--) {
			var d = list[i];
			if (!(d instanceof Record) || d.done)
				continue;
			if (returning) {
				try {
					d.e();
				} catch (x) {
					e = x;
					returning = false;
				}
				continue;
			}
			d.done = true;
			if (d.a)
				continue;
			try {
				var f = d.it['return'];
				if (f != null)
					apply(f, d.it, []);
			} catch (ignored) {
			}
		}
		throw e;
	}

	/* ToPropertyKey, for the computed keys of an object pattern. */
	/* {a, ...rest} = v: CopyDataProperties, the own enumerable properties
	 * of v but the excluded keys: the strings in Object.keys order, then
	 * the symbols, as [[OwnPropertyKeys]] orders them. A key a getter
	 * deleted meanwhile is skipped; __proto__ becomes an own property.
	 * (Duktape's proxies have no getOwnPropertyDescriptor trap, so a
	 * proxy's keys are what its ownKeys trap gives and Object.keys lists.) */
	function restOf(v, excluded) {
		if (v == null)
			throw new TypeError('cannot destructure ' + describe(v));
		var src = Object(v), out = {}, keys = Object.keys(src), i, k;
		for (i = 0; i < keys.length; i++) {
			k = keys[i];
			if ((!excluded.length || excluded.indexOf(k) < 0) && k in src)
				put(out, k, src[k]);
		}
		keys = Object.getOwnPropertySymbols(src);
		for (i = 0; i < keys.length; i++) {
			k = keys[i];
			if (excluded.indexOf(k) < 0 && Object.prototype.propertyIsEnumerable.call(src, k))
				put(out, k, src[k]);
		}
		return out;
	}

	function put(obj, k, value) {
		if (k === '__proto__')
			defineProperty(obj, k, {value: value, writable: true, enumerable: true,
						configurable: true});
		else
			obj[k] = value;
	}

	/* ---- async generators and for await */

	var ASYNC_ITERATOR = Symbol.asyncIterator;
	if (!ASYNC_ITERATOR) {
		ASYNC_ITERATOR = Symbol('Symbol.asyncIterator');
		defineProperty(Symbol, 'asyncIterator', {value: ASYNC_ITERATOR});
	}

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
	/* 1 on a generator function, 2 on an async one: inspect.js names
	 * them by it. */
	var GENFN = keys.genfn;

	/* fn as a generator function (async: an async one), once: its own
	 * prototype a fresh object inheriting from its objects' default, no
	 * constructor in it; named after key (see fname) when given. */
	function genFn(fn, async, key, prefix) {
		if (arguments.length > 2)
			fname(fn, key, prefix);
		if (hasOwn.call(fn, GENFN))
			return fn;
		defineProperty(fn, GENFN, {value: async ? 2 : 1});
		defineProperty(fn, 'prototype', {value: Object.create(async ? AGP : GP)});
		setPrototypeOf(fn, async ? AGFP : GFP);
		return fn;
	}

	/* fn, a lowered async function, marked as one (keys.asyncfn) for
	 * inspect.js, which prints it as [AsyncFunction: name]. */
	var ASYNCFN = keys.asyncfn;
	function asyncFn(fn) {
		defineProperty(fn, ASYNCFN, {value: true});
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

	/* ---- the temporal dead zone (see the lowering's tdzRef) */

	/* What a let, const or class binding holds before its declaration
	 * runs, where the lowering cannot tell that it has. */
	var TDZ = Object.freeze({});

	function tdz(name) {
		throw new ReferenceError('Cannot access \'' + name + '\' before initialization');
	}

	/* The value assigned to a let binding holding cur. */
	function tdzSet(v, name, cur) {
		if (cur === TDZ)
			tdz(name);
		return v;
	}

	/* An assignment to a const (or a class's own name inside it). */
	function constSet(v, name, cur) {
		if (cur === TDZ)
			tdz(name);
		throw new TypeError('Assignment to constant variable \'' + name + '\'');
	}

	/* The loop wrapper's answer for `break` (see the lowering of loops
	 * whose bindings closures capture). */
	var BREAK = Object.freeze({});

	/* ---- eval and Function
	 *
	 * The global eval and Function (Function.prototype.constructor too) are
	 * replaced by ones that lower their source as a script's is, so
	 * modern syntax runs there too, under the execution's limits. Lowered
	 * code runs, as the engine runs a script's, in a wrapper that hands it
	 * the runtime and binds eval to the engine's own, for its direct evals
	 * (see the lowering's txDirectEval); nothing else ever holds them. */

	var nativeEval = eval, NativeFunction = Function;
	var global = NativeFunction('return this')();
	var RT = null;

	function lowered(r) {
		if (r.error)
			throw new SyntaxError(r.error.message);
		return r;
	}

	/* The function running lowered code (its globals declared first). */
	function compileLowered(code, globals) {
		var text = (globals && globals.length ? 'var ' + globals.join(',') + ';' : '') +
			'(function($$rt){var eval=$$rt.evalNative;return function(){' + code + '\n}})';
		return nativeEval(text)(RT);
	}

	/* The global eval: an indirect eval, of global code. */
	var evalGlobal = function (x) {
		if (typeof x !== 'string')
			return x;
		var r = lowered(lower.downlevel(x, 'javascript', false, 'global'));
		return compileLowered(r.code, r.globals).call(global);
	};

	/* What a direct eval in lowered code evaluates, for the arguments
	 * list: the first lowered (env: what the caller's lowering knows of
	 * the scope around, see the lowering's txDirectEval), or, when a
	 * script has replaced the global eval, source giving what that
	 * returned. */
	function evalArg(list, strict, env) {
		var f = global.eval;
		if (f !== evalGlobal) {
			var v = f.apply(undefined, list);
			if (typeof v !== 'string')
				return v;
			return JSON.stringify(v).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
		}
		var x = list[0];
		if (typeof x !== 'string')
			return x;
		return lowered(lower.downlevel(strict ? '"use strict";' + x : x, 'javascript', false,
					       'direct', env)).code;
	}

	var FunctionC = function (p) {
		var n = arguments.length, params = [];
		for (var i = 0; i < n - 1; i++)
			params.push(String(arguments[i]));
		var body = n ? String(arguments[n - 1]) : '';
		var fn = compileLowered(lowered(lower.lowerFunction(params.join(','), body,
								   'function')).code)();
		/* A subclass's object (see constructWith) names the prototype the
		 * function gets, as newTarget's prototype does in the standard. */
		if (this instanceof FunctionC && getPrototypeOf(this) !== NativeFunction.prototype)
			setPrototypeOf(fn, getPrototypeOf(this));
		return fn;
	};

	function installEval() {
		defineProperty(evalGlobal, 'name', {value: 'eval', configurable: true});
		defineProperty(FunctionC, 'name', {value: 'Function', configurable: true});
		defineProperty(FunctionC, 'prototype', {value: NativeFunction.prototype, writable: false,
							 enumerable: false, configurable: false});
		defineProperty(NativeFunction.prototype, 'constructor',
			       {value: FunctionC, writable: true, enumerable: false, configurable: true});
		defineProperty(global, 'eval', {value: evalGlobal, writable: true, enumerable: false,
						configurable: true});
		defineProperty(global, 'Function', {value: FunctionC, writable: true,
						    enumerable: false, configurable: true});
	}

	/* The unmapped arguments object of a sloppy function whose
	 * parameters are not simple: a strict function's, with the same
	 * values (and a callee that throws). */
	function unmapped(args) {
		return strictArguments.apply(undefined, args);
	}
	function strictArguments() {
		return arguments;
	}


	RT = Object.freeze({
		unmapped: unmapped,
		evalArg: evalArg,
		evalNative: nativeEval,
		global: global,
		iter: iter,
		close: close,
		named: named,
		namedGroups: function () {
			if (!stringsPatched)
				patchStrings();
		},
		record: record,
		iterate: iterate,
		tail: tail,
		abort: abort,
		restOf: restOf,
		proto: proto,
		closeAsync: closeAsync,
		asyncRecord: asyncRecord,
		asyncStep: asyncStep,
		asyncAbort: asyncAbort,
		asyncLeave: asyncLeave,
		asyncYield: asyncYield,
		asyncYieldStar: asyncYieldStar,
		passReturn: passReturn,
		asyncGenerator: asyncGenerator,
		spread: spread,
		construct: construct,
		assign: assign,
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
		methods: methods,
		field: field,
		superGet: superGet,
		pnames: pnames,
		pdef: pdef,
		padd: padd,
		pbrand: pbrand,
		pget: pget,
		pset: pset,
		pin: pin,
		template: template,
		yieldValue: yieldValue,
		yieldStar: yieldStar,
		generator: generator,
		awaitValue: awaitValue,
		async: async,
		fname: fname,
		genFn: genFn,
		asyncFn: asyncFn,
		propertyKey: propertyKey,
		notNew: notNew,
		TDZ: TDZ,
		tdz: tdz,
		tdzSet: tdzSet,
		constSet: constSet,
		BREAK: BREAK
	});
	installEval();
	return RT;
})
