/*
 * builtins.js - the ES2017-ES2024 built-ins Duktape 2.7 lacks beyond what
 * polyfills.js gives: Error.captureStackTrace and stackTraceLimit, the
 * methods of typed arrays, Object.getOwnPropertyDescriptors and groupBy,
 * Map.groupBy, Array.prototype.copyWithin, the string methods on
 * well-formedness and normalize, Math's fround, WeakRef and
 * FinalizationRegistry, and Promise.withResolvers.
 *
 * Runs once, in the forkserver's prepared engine, after polyfills.js (it
 * uses its Map, Promise and iterators). ES5 only. Everything is defined
 * non-enumerable, like the built-ins it stands in for, except where Node's
 * own is enumerable (Error.stackTraceLimit). Evaluates to a function of
 * (global, hidden, tables): hidden is the engine's object of hidden keys
 * (see polyfills.js), tables String.prototype.normalize's data
 * (normtables.js); nothing here is reachable but the built-ins
 * themselves.
 */
(function (global, hidden, tables) {
	'use strict';
	var defineProperty = Object.defineProperty;
	var hasOwn = Object.prototype.hasOwnProperty;
	var ITERATOR = Symbol.iterator;

	function define(obj, name, value) {
		if (!hasOwn.call(obj, name))
			defineProperty(obj, name, {value: value, writable: true, configurable: true,
						   enumerable: false});
	}

	function toInteger(v) {
		var n = Number(v);
		if (n !== n)
			return 0;
		if (n === 0 || !isFinite(n))
			return n;
		return n < 0 ? Math.ceil(n) : Math.floor(n);
	}

	function toLength(v) {
		var n = toInteger(v);
		return n <= 0 ? 0 : Math.min(n, 9007199254740991);
	}

	/* A relative index (start, end: negative counts from the end) clamped
	 * to [0, len]. */
	function relative(v, len, dflt) {
		var n = v === undefined ? dflt : toInteger(v);
		return n < 0 ? Math.max(len + n, 0) : Math.min(n, len);
	}

	function isCallable(f) { return typeof f === 'function'; }

	function callable(f, what) {
		if (!isCallable(f))
			throw new TypeError(String(f) + ' is not a function' + (what ? ' (' + what + ')' : ''));
		return f;
	}

	/* Calls fn(value, index) for each value of an iterable. */
	function each(items, fn) {
		if (items == null)
			throw new TypeError(String(items) + ' is not iterable');
		var method = items[ITERATOR];
		if (!isCallable(method))
			throw new TypeError(String(items) + ' is not iterable');
		var it = method.call(items), step, i = 0;
		while (!(step = it.next()).done) {
			try {
				fn(step.value, i++);
			} catch (e) {
				if (isCallable(it['return']))
					try { it['return'](); } catch (ignored) {}
				throw e;
			}
		}
	}

	/* ---- Error: captureStackTrace and stackTraceLimit, as V8 has them */

	/* Error.stackTraceLimit is a plain, enumerable data property in Node;
	 * captureStackTrace honours it. */
	defineProperty(Error, 'stackTraceLimit', {value: 10, writable: true, enumerable: true,
						  configurable: true});

	/* The frames of a stack text ("    at f (script.js:3)" lines), without
	 * its first line and without the frames of this file. */
	function framesOf(stack) {
		var lines = typeof stack === 'string' ? stack.split('\n') : [], out = [];
		for (var i = 1; i < lines.length; i++)
			if (lines[i].indexOf('builtins.js') < 0)
				out.push(lines[i]);
		return out;
	}

	/* "name: message" as V8 heads a captured stack: Error for a missing
	 * name, no colon for an empty message. */
	function stackHead(o) {
		var name = o.name, message = o.message;
		name = name === undefined ? 'Error' : String(name);
		message = message === undefined ? '' : String(message);
		return name === '' ? message : message === '' ? name : name + ': ' + message;
	}

	define(Error, 'captureStackTrace', function captureStackTrace(target, constructorOpt) {
		if (Object(target) !== target)
			throw new TypeError('invalid_argument');
		var limit = Error.stackTraceLimit, text;
		if (typeof limit === 'number') {
			var frames = framesOf(new Error().stack);
			/* Frames above constructorOpt, and its own, are left out; none
			 * are left when it is not on the stack. A frame names its
			 * function, so a function is found by its name. */
			if (isCallable(constructorOpt)) {
				var name = constructorOpt.name, found = -1;
				for (var i = 0; name && i < frames.length; i++)
					if (frames[i].indexOf('    at ' + name + ' ') === 0) {
						found = i;
						break;
					}
				frames = found < 0 ? [] : frames.slice(found + 1);
			}
			frames = frames.slice(0, limit > 0 ? limit : 0);
			text = [stackHead(target)].concat(frames).join('\n');
		}
		defineProperty(target, 'stack', {value: text, writable: true, enumerable: false,
						 configurable: true});
	});

	/* ---- typed arrays: %TypedArray%.prototype's methods (ES2015-ES2023) */

	if (typeof Int8Array === 'function') {
		var TA = Object.getPrototypeOf(Int8Array);
		var TAP = Object.getPrototypeOf(Int8Array.prototype);
		var AP = Array.prototype;

		var isTyped = function (o) {
			return ArrayBuffer.isView(o) && !(o instanceof DataView);
		};
		var typed = function (o, method) {
			if (!isTyped(o))
				throw new TypeError('this is not a typed array (%TypedArray%.prototype.' +
						    method + ')');
			return o;
		};
		/* A new typed array of o's kind. */
		var like = function (o, len) { return new o.constructor(len); };

		/* The methods that read and never write go through Array's own,
		 * which work on any array-like. */
		var borrow = function (name, fn) {
			define(TAP, name, function () {
				return fn.apply(typed(this, name), arguments);
			});
		};
		borrow('every', AP.every);
		borrow('some', AP.some);
		borrow('forEach', AP.forEach);
		borrow('reduce', AP.reduce);
		borrow('reduceRight', AP.reduceRight);
		borrow('indexOf', AP.indexOf);
		borrow('lastIndexOf', AP.lastIndexOf);
		borrow('includes', AP.includes);
		borrow('find', AP.find);
		borrow('findIndex', AP.findIndex);
		borrow('findLast', AP.findLast);
		borrow('findLastIndex', AP.findLastIndex);
		borrow('at', AP.at);
		borrow('reverse', AP.reverse);
		borrow('copyWithin', function (target, start, end) {
			var len = this.length, to = relative(target, len, 0);
			var from = relative(start, len, 0), fin = relative(end, len, len);
			var count = Math.min(fin - from, len - to);
			if (count > 0)
				this.set(this.subarray(from, from + count), to);
			return this;
		});
		define(TAP, 'join', function (sep) {
			var o = typed(this, 'join'), s = sep === undefined ? ',' : String(sep), out = '';
			for (var i = 0; i < o.length; i++)
				out += (i ? s : '') + String(o[i]);
			return out;
		});
		/* The same function object as Array.prototype.toString (ES2015
		 * 22.2.3.29). */
		define(TAP, 'toString', AP.toString);
		define(TAP, 'toLocaleString', function () {
			return AP.toLocaleString.call(typed(this, 'toLocaleString'));
		});
		define(TAP, 'fill', function (value, start, end) {
			var o = typed(this, 'fill'), len = o.length, v = Number(value);
			for (var k = relative(start, len, 0), fin = relative(end, len, len); k < fin; k++)
				o[k] = v;
			return o;
		});
		define(TAP, 'map', function (fn, thisArg) {
			var o = typed(this, 'map'), out = like(o, o.length);
			callable(fn, 'map');
			for (var i = 0; i < o.length; i++)
				out[i] = fn.call(thisArg, o[i], i, o);
			return out;
		});
		define(TAP, 'filter', function (fn, thisArg) {
			var o = typed(this, 'filter'), kept = [];
			callable(fn, 'filter');
			for (var i = 0; i < o.length; i++)
				if (fn.call(thisArg, o[i], i, o))
					kept.push(o[i]);
			var out = like(o, kept.length);
			for (var j = 0; j < kept.length; j++)
				out[j] = kept[j];
			return out;
		});
		define(TAP, 'slice', function (start, end) {
			var o = typed(this, 'slice'), len = o.length;
			var from = relative(start, len, 0), fin = relative(end, len, len);
			var out = like(o, Math.max(fin - from, 0));
			for (var i = 0; from + i < fin; i++)
				out[i] = o[from + i];
			return out;
		});
		/* Numbers in ascending order, -0 before +0 and NaN last, unless a
		 * comparator is given (ES2023 23.2.3.29). */
		var numeric = function (a, b) {
			if (a !== a)
				return b !== b ? 0 : 1;
			if (b !== b)
				return -1;
			if (a < b)
				return -1;
			if (a > b)
				return 1;
			if (a === 0 && b === 0)
				return 1 / a < 0 ? (1 / b < 0 ? 0 : -1) : (1 / b < 0 ? 1 : 0);
			return 0;
		};
		var sortInto = function (o, out, compare) {
			var tmp = AP.slice.call(o);
			tmp.sort(compare === undefined ? numeric : function (a, b) {
				var r = Number(compare(a, b));
				return r !== r ? 0 : r;
			});
			for (var i = 0; i < tmp.length; i++)
				out[i] = tmp[i];
			return out;
		};
		define(TAP, 'sort', function (compare) {
			if (compare !== undefined)
				callable(compare, 'sort');
			var o = typed(this, 'sort');
			return sortInto(o, o, compare);
		});
		/* The copying methods make an array of the same kind, never a
		 * species (ES2023 23.2.3.32-36). */
		define(TAP, 'toSorted', function (compare) {
			if (compare !== undefined)
				callable(compare, 'toSorted');
			var o = typed(this, 'toSorted');
			return sortInto(o, like(o, o.length), compare);
		});
		define(TAP, 'toReversed', function () {
			var o = typed(this, 'toReversed'), len = o.length, out = like(o, len);
			for (var i = 0; i < len; i++)
				out[i] = o[len - 1 - i];
			return out;
		});
		define(TAP, 'with', function (index, value) {
			var o = typed(this, 'with'), len = o.length, k = toInteger(index);
			k = k >= 0 ? k : len + k;
			var v = Number(value);
			if (k < 0 || k >= len)
				throw new RangeError('Invalid typed array index');
			var out = like(o, len);
			out.set(o);
			out[k] = v;
			return out;
		});

		var fromList = function (C, list) {
			var out = new C(list.length);
			for (var i = 0; i < list.length; i++)
				out[i] = list[i];
			return out;
		};
		/* Int8Array.from and .of, inherited from %TypedArray% by every kind. */
		define(TA, 'from', function from(source, mapFn, thisArg) {
			if (!isCallable(this))
				throw new TypeError('this is not a constructor');
			if (mapFn !== undefined)
				callable(mapFn, 'from');
			var list = [], o = Object(source);
			if (isCallable(o[ITERATOR]))
				each(o, function (v) { list.push(v); });
			else
				for (var i = 0, n = toLength(o.length); i < n; i++)
					list.push(o[i]);
			if (mapFn)
				for (var j = 0; j < list.length; j++)
					list[j] = mapFn.call(thisArg, list[j], j);
			return fromList(this, list);
		});
		define(TA, 'of', function of() {
			if (!isCallable(this))
				throw new TypeError('this is not a constructor');
			return fromList(this, AP.slice.call(arguments));
		});
		defineProperty(TA.from, 'length', {value: 1, configurable: true});
	}

	/* ---- Array */

	/* A stable merge sort (ES2019 made sort stable; the engine's own is
	 * not) of list, which holds no undefined, by compare (SortCompare:
	 * b goes first only when compare(a, b) > 0, NaN counting as 0): runs
	 * of 8 by insertion, then merges of doubling width between two
	 * buffers. Returns the sorted list (list itself or another array). */
	function mergeSort(list, compare) {
		var n = list.length, i, j;
		for (var lo = 0; lo < n; lo += 8) {
			var hi = lo + 8 < n ? lo + 8 : n;
			for (i = lo + 1; i < hi; i++) {
				var v = list[i];
				for (j = i - 1; j >= lo && compare(list[j], v) > 0; j--)
					list[j + 1] = list[j];
				list[j + 1] = v;
			}
		}
		var src = list, dst = new Array(n);
		for (var width = 8; width < n; width *= 2) {
			for (var left = 0; left < n; left += 2 * width) {
				var mid = left + width < n ? left + width : n;
				var right = left + 2 * width < n ? left + 2 * width : n;
				var a = left, b = mid, k = left;
				while (a < mid && b < right)
					dst[k++] = compare(src[a], src[b]) > 0 ? src[b++] : src[a++];
				while (a < mid)
					dst[k++] = src[a++];
				while (b < right)
					dst[k++] = src[b++];
			}
			var t = src;
			src = dst;
			dst = t;
		}
		return src;
	}

	/* The same sort by the elements' strings (no comparator given):
	 * sorting indices by a list of keys, compared inline. */
	function mergeSortStrings(list) {
		var n = list.length, keys = new Array(n), idx = new Array(n), i, j;
		for (i = 0; i < n; i++) {
			keys[i] = String(list[i]);
			idx[i] = i;
		}
		for (var lo = 0; lo < n; lo += 8) {
			var hi = lo + 8 < n ? lo + 8 : n;
			for (i = lo + 1; i < hi; i++) {
				var v = idx[i], key = keys[v];
				for (j = i - 1; j >= lo && keys[idx[j]] > key; j--)
					idx[j + 1] = idx[j];
				idx[j + 1] = v;
			}
		}
		var src = idx, dst = new Array(n);
		for (var width = 8; width < n; width *= 2) {
			for (var left = 0; left < n; left += 2 * width) {
				var mid = left + width < n ? left + width : n;
				var right = left + 2 * width < n ? left + 2 * width : n;
				var a = left, b = mid, k = left;
				while (a < mid && b < right)
					dst[k++] = keys[src[a]] > keys[src[b]] ? src[b++] : src[a++];
				while (a < mid)
					dst[k++] = src[a++];
				while (b < right)
					dst[k++] = src[b++];
			}
			var t = src;
			src = dst;
			dst = t;
		}
		for (i = 0; i < n; i++)
			dst[i] = list[src[i]];
		return dst;
	}

	/* Array.prototype.sort (ES2023 23.1.3.30): the present elements
	 * sorted, stably, then the undefined ones, then the holes. The copying toSorted of the
	 * polyfills sorts through it. */
	defineProperty(Array.prototype, 'sort', {writable: true, configurable: true, enumerable: false,
						 value: function sort(comparefn) {
		if (comparefn !== undefined && !isCallable(comparefn))
			throw new TypeError('The comparison function must be either a function or undefined');
		var o = Object(this), len = toLength(o.length), items = [], undefs = 0;
		for (var i = 0; i < len; i++)
			if (i in o) {
				var v = o[i];
				if (v === undefined)
					undefs++;
				else
					items.push(v);
			}
		items = comparefn === undefined ? mergeSortStrings(items) : mergeSort(items, comparefn);
		for (var j = 0; j < items.length; j++)
			o[j] = items[j];
		for (; undefs > 0; undefs--)
			o[j++] = undefined;
		for (; j < len; j++)
			delete o[j];
		return o;
	}});

	define(Array.prototype, 'copyWithin', function copyWithin(target, start, end) {
		var o = Object(this), len = toLength(o.length), to = relative(target, len, 0);
		var from = relative(start, len, 0), fin = relative(end, len, len);
		var count = Math.min(fin - from, len - to), dir = 1;
		if (from < to && to < from + count) {
			dir = -1;
			from += count - 1;
			to += count - 1;
		}
		for (; count > 0; count--, from += dir, to += dir) {
			if (from in o)
				o[to] = o[from];
			else
				delete o[to];
		}
		return o;
	});
	defineProperty(Array.prototype.copyWithin, 'length', {value: 2, configurable: true});

	/* ---- Object and Map: descriptors and grouping (ES2017, ES2024) */

	define(Object, 'getOwnPropertyDescriptors', function getOwnPropertyDescriptors(o) {
		if (o == null)
			throw new TypeError('Cannot convert undefined or null to object');
		var obj = Object(o), keys = Reflect.ownKeys(obj), out = {};
		for (var i = 0; i < keys.length; i++) {
			var d = Object.getOwnPropertyDescriptor(obj, keys[i]);
			if (d !== undefined)
				out[keys[i]] = d;
		}
		return out;
	});

	/* GroupBy (ES2024 7.3.35): each item's key from fn(item, index), the
	 * groups in the order their keys first appear. */
	function groups(items, fn, toKey) {
		callable(fn, 'groupBy');
		var found = new global.Map(), order = [];
		each(items, function (v, i) {
			var k = toKey(fn(v, i));
			var g = found.get(k);
			if (g === undefined) {
				g = [];
				found.set(k, g);
				order.push(k);
			}
			g.push(v);
		});
		return {keys: order, map: found};
	}

	define(Object, 'groupBy', function groupBy(items, callback) {
		var g = groups(items, callback, function (k) {
			return typeof k === 'symbol' ? k : String(k);
		});
		var out = Object.create(null);
		for (var i = 0; i < g.keys.length; i++)
			out[g.keys[i]] = g.map.get(g.keys[i]);
		return out;
	});

	define(global.Map, 'groupBy', function groupBy(items, callback) {
		var g = groups(items, callback, function (k) { return k === 0 ? 0 : k; });
		var out = new global.Map();
		for (var i = 0; i < g.keys.length; i++)
			out.set(g.keys[i], g.map.get(g.keys[i]));
		return out;
	});

	/* ---- String: well-formed UTF-16 (ES2024) */

	var SP = String.prototype;
	function wellFormed(s, replace) {
		var out = '', from = 0;
		for (var i = 0; i < s.length; i++) {
			var c = s.charCodeAt(i);
			if (c < 0xD800 || c > 0xDFFF)
				continue;
			if (c <= 0xDBFF && i + 1 < s.length) {
				var d = s.charCodeAt(i + 1);
				if (d >= 0xDC00 && d <= 0xDFFF) {
					i++;
					continue;
				}
			}
			if (!replace)
				return false;
			out += s.slice(from, i) + '\uFFFD';
			from = i + 1;
		}
		return replace ? out + s.slice(from) : true;
	}
	/* ToString of this: TypeError for undefined, null and a symbol. */
	function thisString(v, method) {
		if (v == null)
			throw new TypeError('String.prototype.' + method + ' called on null or undefined');
		if (typeof v === 'symbol')
			throw new TypeError('Cannot convert a Symbol value to a string');
		return String(v);
	}
	define(SP, 'isWellFormed', function isWellFormed() {
		return wellFormed(thisString(this, 'isWellFormed'), false);
	});
	define(SP, 'toWellFormed', function toWellFormed() {
		return wellFormed(thisString(this, 'toWellFormed'), true);
	});

	/* ---- Math (ES2015): fround; the engine gives sinh, cosh, tanh, asinh,
	 * acosh, atanh, expm1, log1p and cbrt from the C library. */

	var f32 = new Float32Array(1);
	define(Math, 'fround', function fround(x) {
		f32[0] = Number(x);
		return f32[0];
	});

	/* ---- WeakRef and FinalizationRegistry (ES2021)
	 *
	 * A worker lives for one execution and its heap goes with it: a
	 * WeakRef's target is held until then (deref always gives it), and a
	 * registry's cleanup never runs, which the specification allows
	 * (9.10: an implementation need not ever collect). */

	var TARGET = hidden.fresh(), CELLS = hidden.fresh();

	function canBeHeldWeakly(v) {
		return Object(v) === v ||
		       (typeof v === 'symbol' && Symbol.keyFor(v) === undefined);
	}

	function WeakRef(target) {
		if (!(this instanceof WeakRef))
			throw new TypeError("Constructor WeakRef requires 'new'");
		if (!canBeHeldWeakly(target))
			throw new TypeError('WeakRef: invalid target');
		defineProperty(this, TARGET, {value: target});
	}
	define(WeakRef.prototype, 'deref', function deref() {
		if (Object(this) !== this || !hasOwn.call(this, TARGET))
			throw new TypeError('WeakRef.prototype.deref: receiver is not a WeakRef');
		return this[TARGET];
	});
	if (Symbol.toStringTag)
		defineProperty(WeakRef.prototype, Symbol.toStringTag, {value: 'WeakRef',
								      configurable: true});

	function FinalizationRegistry(cleanup) {
		if (!(this instanceof FinalizationRegistry))
			throw new TypeError("Constructor FinalizationRegistry requires 'new'");
		if (!isCallable(cleanup))
			throw new TypeError('FinalizationRegistry: cleanup must be callable');
		defineProperty(this, CELLS, {value: []});
	}
	function cells(self, method) {
		if (Object(self) !== self || !hasOwn.call(self, CELLS))
			throw new TypeError('FinalizationRegistry.prototype.' + method +
					    ': receiver is not a FinalizationRegistry');
		return self[CELLS];
	}
	define(FinalizationRegistry.prototype, 'register', function register(target, held, token) {
		var list = cells(this, 'register');
		if (!canBeHeldWeakly(target))
			throw new TypeError('FinalizationRegistry.prototype.register: invalid target');
		if (target === held)
			throw new TypeError('FinalizationRegistry.prototype.register: ' +
					    'target and holdings must not be same');
		if (token !== undefined && !canBeHeldWeakly(token))
			throw new TypeError("Invalid unregisterToken ('" + String(token) + "')");
		list.push({token: token});
	});
	define(FinalizationRegistry.prototype, 'unregister', function unregister(token) {
		var list = cells(this, 'unregister'), removed = false;
		if (!canBeHeldWeakly(token))
			throw new TypeError("Invalid unregisterToken ('" + String(token) + "')");
		for (var i = list.length - 1; i >= 0; i--)
			if (list[i].token === token) {
				list.splice(i, 1);
				removed = true;
			}
		return removed;
	});
	if (Symbol.toStringTag)
		defineProperty(FinalizationRegistry.prototype, Symbol.toStringTag,
			       {value: 'FinalizationRegistry', configurable: true});
	define(global, 'WeakRef', WeakRef);
	define(global, 'FinalizationRegistry', FinalizationRegistry);

	/* ---- Proxy.revocable (ES2015 28.2.2.1): a proxy whose handler is one
	 * of ours, passing each trap on to the given handler (or doing what
	 * Reflect does) until revoke() is called, then throwing as V8 does. */

	var TRAPS = ['get', 'set', 'has', 'deleteProperty', 'ownKeys', 'apply', 'construct',
		     'defineProperty', 'getOwnPropertyDescriptor', 'getPrototypeOf',
		     'setPrototypeOf', 'isExtensible', 'preventExtensions'];
	/* What a trap the handler lacks does: the operation itself on the
	 * target for those the engine's Reflect gets wrong (its get and set
	 * take no receiver but the target, its has refuses a symbol). */
	var DIRECT = {
		get: function (t, k) { return t[k]; },
		set: function (t, k, v) { t[k] = v; return true; },
		has: function (t, k) { return k in t; },
		deleteProperty: function (t, k) { return delete t[k]; }
	};
	if (typeof Proxy === 'function')
		define(Proxy, 'revocable', function revocable(target, handler) {
			if (Object(target) !== target || Object(handler) !== handler)
				throw new TypeError('Cannot create proxy with a non-object as target or handler');
			var state = {handler: handler};
			var forward = {};
			TRAPS.forEach(function (name) {
				forward[name] = function () {
					var h = state.handler;
					if (h === null)
						throw new TypeError("Cannot perform '" + name +
								    "' on a proxy that has been revoked");
					var trap = h[name];
					if (trap != null)
						return trap.apply(h, arguments);
					return (DIRECT[name] || Reflect[name]).apply(null, arguments);
				};
			});
			return {proxy: new Proxy(target, forward),
				revoke: function () { state.handler = null; }};
		});

	/* ---- Symbol: the well-known symbols the engine lacks. They exist (as
	 * Node's do, asyncDispose and dispose under Node 20's descriptions),
	 * so that code naming them runs; the engine does not consult them. */

	var WELL_KNOWN = {match: 'Symbol.match', matchAll: 'Symbol.matchAll',
			  replace: 'Symbol.replace', search: 'Symbol.search',
			  species: 'Symbol.species', split: 'Symbol.split',
			  unscopables: 'Symbol.unscopables', dispose: 'nodejs.dispose',
			  asyncDispose: 'nodejs.asyncDispose'};
	for (var wk in WELL_KNOWN)
		if (hasOwn.call(WELL_KNOWN, wk) && !hasOwn.call(Symbol, wk))
			defineProperty(Symbol, wk, {value: Symbol(WELL_KNOWN[wk])});

	/* ---- String.prototype's HTML methods (Annex B.2.2.2-14) */

	function html(tagName, attribute) {
		return function (value) {
			if (this == null)
				throw new TypeError('String.prototype method called on null or undefined');
			var open = '<' + tagName;
			if (attribute)
				open += ' ' + attribute + '="' + String(value).replace(/"/g, '&quot;') + '"';
			return open + '>' + String(this) + '</' + tagName + '>';
		};
	}
	var HTML = [['anchor', 'a', 'name'], ['big', 'big'], ['blink', 'blink'], ['bold', 'b'],
		    ['fixed', 'tt'], ['fontcolor', 'font', 'color'], ['fontsize', 'font', 'size'],
		    ['italics', 'i'], ['link', 'a', 'href'], ['small', 'small'],
		    ['strike', 'strike'], ['sub', 'sub'], ['sup', 'sup']];
	for (var h = 0; h < HTML.length; h++) {
		define(SP, HTML[h][0], html(HTML[h][1], HTML[h][2]));
		defineProperty(SP[HTML[h][0]], 'name', {value: HTML[h][0], configurable: true});
		defineProperty(SP[HTML[h][0]], 'length', {value: HTML[h][2] ? 1 : 0, configurable: true});
	}

	/* ---- String.prototype.normalize (ES2015 22.1.3.12, UAX #15)
	 *
	 * The tables (worker/js/normtables.js, from scripts/unicode-norm.js)
	 * are strings by block of 256 code points, each read into a lookup the
	 * first time a worker meets a character of that block: normalizing
	 * Latin text reads a few blocks, not the whole of Unicode. Hangul
	 * syllables are decomposed and composed arithmetically. */

	var num = function (x) { return parseInt(x, 36); };
	var read = {canonical: {}, compat: {}, classes: {}, pairs: {}};

	/* The entries of table's block holding code point c, read once. */
	function block(table, c) {
		var b = c >> 8, cache = read[table], got = cache[b];
		if (got !== undefined)
			return got;
		got = cache[b] = {};
		var text = tables[table][b.toString(36)];
		if (!text)
			return got;
		var list = text.split(',');
		for (var i = 0; i < list.length; i++) {
			var e = list[i];
			if (table === 'pairs') {
				var p = e.split('.').map(num);
				(got[p[0]] || (got[p[0]] = {}))[p[1]] = p[2];
			} else {
				var kv = e.split(':');
				got[num(kv[0])] = table === 'classes' ? num(kv[1]) : kv[1].split('.').map(num);
			}
		}
		return got;
	}

	/* The canonical combining class of c as a rank (0 for a starter). */
	function ccc(c) { return c < 0x300 ? 0 : block('classes', c)[c] || 0; }

	var SBASE = 0xAC00, LBASE = 0x1100, VBASE = 0x1161, TBASE = 0x11A7;
	var LCOUNT = 19, VCOUNT = 21, TCOUNT = 28, NCOUNT = VCOUNT * TCOUNT, SCOUNT = LCOUNT * NCOUNT;

	/* The code points of s fully decomposed (canonically, or for
	 * compatibility too), in canonical order. Lone surrogates stay. */
	function decompose(s, compat) {
		var out = [];
		for (var i = 0; i < s.length; i++) {
			var c = s.charCodeAt(i);
			if (c >= 0xD800 && c <= 0xDBFF && i + 1 < s.length) {
				var d = s.charCodeAt(i + 1);
				if (d >= 0xDC00 && d <= 0xDFFF) {
					c = (c - 0xD800) * 0x400 + (d - 0xDC00) + 0x10000;
					i++;
				}
			}
			var si = c - SBASE;
			if (si >= 0 && si < SCOUNT) {
				out.push(LBASE + Math.floor(si / NCOUNT), VBASE + Math.floor((si % NCOUNT) / TCOUNT));
				if (si % TCOUNT)
					out.push(TBASE + si % TCOUNT);
				continue;
			}
			var m = c < 0xA0 ? undefined : (compat && block('compat', c)[c]) || block('canonical', c)[c];
			if (m)
				out.push.apply(out, m);
			else
				out.push(c);
		}
		/* Canonical ordering: each run of marks sorted by class, stably. */
		for (var k = 1; k < out.length; k++) {
			var cc = ccc(out[k]);
			if (!cc)
				continue;
			for (var j = k; j > 0 && ccc(out[j - 1]) > cc; j--) {
				var tmp = out[j];
				out[j] = out[j - 1];
				out[j - 1] = tmp;
			}
		}
		return out;
	}

	/* The primary composite of a and b, or undefined. */
	function composite(a, b) {
		var li = a - LBASE, vi = b - VBASE, si = a - SBASE, ti = b - TBASE;
		if (li >= 0 && li < LCOUNT && vi >= 0 && vi < VCOUNT)
			return SBASE + (li * VCOUNT + vi) * TCOUNT;
		if (si >= 0 && si < SCOUNT && si % TCOUNT === 0 && ti > 0 && ti < TCOUNT)
			return a + ti;
		var m = block('pairs', a)[a];
		return m ? m[b] : undefined;
	}

	/* Canonical composition (UAX #15 1.3): each character joins the last
	 * starter unless a character between them has class 0 or one as high. */
	function compose(cps) {
		var out = [], starter = -1, last = 0;
		for (var i = 0; i < cps.length; i++) {
			var c = cps[i], cc = ccc(c);
			if (starter >= 0 && (out.length - 1 === starter || (last !== 0 && last < cc))) {
				var p = composite(out[starter], c);
				if (p !== undefined) {
					out[starter] = p;
					continue;
				}
			}
			if (cc === 0)
				starter = out.length;
			last = cc;
			out.push(c);
		}
		return out;
	}

	function fromCodePoints(cps) {
		var s = '';
		for (var i = 0; i < cps.length; i++) {
			var c = cps[i];
			if (c > 0xFFFF) {
				c -= 0x10000;
				s += String.fromCharCode(0xD800 + (c >> 10), 0xDC00 + (c & 0x3FF));
			} else {
				s += String.fromCharCode(c);
			}
		}
		return s;
	}

	define(SP, 'normalize', function normalize() {
		var s = thisString(this, 'normalize'), f = arguments[0];
		if (typeof f === 'symbol')
			throw new TypeError('Cannot convert a Symbol value to a string');
		var form = f === undefined ? 'NFC' : String(f);
		if (form !== 'NFC' && form !== 'NFD' && form !== 'NFKC' && form !== 'NFKD')
			throw new RangeError('The normalization form should be one of NFC, NFD, NFKC, NFKD.');
		if (/^[\x00-\x7f]*$/.test(s))
			return s;
		var cps = decompose(s, form === 'NFKC' || form === 'NFKD');
		return fromCodePoints(form === 'NFC' || form === 'NFKC' ? compose(cps) : cps);
	});

	/* ---- Promise.withResolvers (ES2024, Node 22) */

	define(global.Promise, 'withResolvers', function withResolvers() {
		if (!isCallable(this))
			throw new TypeError('Promise.withResolvers called on a non-constructor');
		var C = this, res, rej;
		var promise = new C(function (resolve, reject) {
			res = resolve;
			rej = reject;
		});
		return {promise: promise, resolve: res, reject: rej};
	});
})
