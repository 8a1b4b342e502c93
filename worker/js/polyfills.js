/*
 * polyfills.js - what model-written code expects and Duktape 2.7 lacks.
 *
 * Runs once, in the forkserver's prepared engine, so workers get it for
 * free. ES5 only. Everything is defined non-enumerable, like the built-ins
 * it stands in for. Evaluates to the internals the engine itself uses
 * (draining the microtask queue, inspecting a promise); scripts cannot
 * reach them.
 *
 * The state behind a Map, a Set, a WeakMap's entries and a Promise lives
 * under the keys the engine passes in: Duktape's hidden symbols, which no
 * script can name or list (getOwnPropertySymbols and Reflect.ownKeys skip
 * them), so a script can neither read nor forge it. hidden.fresh() makes
 * another such key.
 */
(function (global, notify, hidden) {
	'use strict';
	var defineProperty = Object.defineProperty;
	var hasOwn = Object.prototype.hasOwnProperty;
	var ITERATOR = Symbol.iterator;
	/* The group names of a regular expression the lowering made from one
	 * with named groups (see runtime.js). */
	var GROUPS = hidden.groups;

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

	function sameValueZero(a, b) {
		return a === b || (a !== a && b !== b);
	}

	function isCallable(f) { return typeof f === 'function'; }

	function tag(proto, name) {
		if (Symbol.toStringTag)
			define(proto, Symbol.toStringTag, name);
	}

	/* ---- iterators */

	/* An iterator whose next is next: with tag, it inherits from that
	 * kind's prototype, which has the tag as Symbol.toStringTag ("Map
	 * Iterator" and the like, as util.inspect names it); rest, when given,
	 * is kept under hidden.iter for util.inspect, which shows the entries a
	 * Map's or a Set's iterator has left without consuming them. */
	var iteratorProtos = {};
	function makeIterator(next, tag, rest) {
		var it;
		if (tag) {
			var proto = iteratorProtos[tag];
			if (!proto) {
				proto = iteratorProtos[tag] = {};
				define(proto, ITERATOR, function () { return this; });
				if (Symbol.toStringTag)
					defineProperty(proto, Symbol.toStringTag, {value: tag, configurable: true});
			}
			it = Object.create(proto);
		} else {
			it = {};
			define(it, ITERATOR, function () { return this; });
		}
		define(it, 'next', next);
		if (rest)
			defineProperty(it, hidden.iter, {value: rest});
		return it;
	}

	/* Calls fn(value) for each value an iterable (or array-like) yields. */
	function forOf(iterable, fn) {
		if (iterable == null)
			throw new TypeError(String(iterable) + ' is not iterable');
		var method = iterable[ITERATOR];
		if (isCallable(method)) {
			var it = method.call(iterable), step;
			while (!(step = it.next()).done) {
				try {
					fn(step.value);
				} catch (e) {
					if (isCallable(it['return']))
						try { it['return'](); } catch (ignored) {}
					throw e;
				}
			}
			return;
		}
		if (typeof iterable === 'string' || typeof iterable.length === 'number') {
			for (var i = 0; i < iterable.length; i++)
				fn(iterable[i]);
			return;
		}
		throw new TypeError(String(iterable) + ' is not iterable');
	}

	function arrayIterator(arr, kind) {
		var i = 0;
		return makeIterator(function () {
			if (arr == null || i >= toLength(arr.length)) {
				arr = null;
				return {value: undefined, done: true};
			}
			var k = i++;
			return {value: kind === 'keys' ? k : kind === 'values' ? arr[k] : [k, arr[k]],
				done: false};
		}, 'Array Iterator');
	}

	var AP = Array.prototype;
	define(AP, 'values', function () { return arrayIterator(Object(this), 'values'); });
	define(AP, 'keys', function () { return arrayIterator(Object(this), 'keys'); });
	define(AP, 'entries', function () { return arrayIterator(Object(this), 'entries'); });
	define(AP, ITERATOR, AP.values);

	/* Typed arrays iterate as arrays do: their shared prototype gets the
	 * same methods. */
	if (typeof Int8Array === 'function') {
		var TAP = Object.getPrototypeOf(Int8Array.prototype);
		define(TAP, 'values', function () { return arrayIterator(this, 'values'); });
		define(TAP, 'keys', function () { return arrayIterator(this, 'keys'); });
		define(TAP, 'entries', function () { return arrayIterator(this, 'entries'); });
		define(TAP, ITERATOR, TAP.values);
	}

	define(String.prototype, ITERATOR, function () {
		var s = String(this), i = 0;
		return makeIterator(function () {
			if (i >= s.length)
				return {value: undefined, done: true};
			var c = s.charCodeAt(i), n = 1;
			if (c >= 0xD800 && c <= 0xDBFF && i + 1 < s.length) {
				var d = s.charCodeAt(i + 1);
				if (d >= 0xDC00 && d <= 0xDFFF)
					n = 2;
			}
			var v = s.substr(i, n);
			i += n;
			return {value: v, done: false};
		}, 'String Iterator');
	});

	/* ---- Array */

	define(Array, 'from', function (items, mapFn, thisArg) {
		if (mapFn !== undefined && !isCallable(mapFn))
			throw new TypeError('Array.from: when provided, the second argument must be a function');
		var out = [], i = 0;
		forOf(Object(items), function (v) {
			out.push(mapFn ? mapFn.call(thisArg, v, i) : v);
			i++;
		});
		return out;
	});
	define(Array, 'of', function () { return AP.slice.call(arguments); });

	function finder(fromEnd, wantIndex) {
		return function (pred, thisArg) {
			var o = Object(this), len = toLength(o.length);
			if (!isCallable(pred))
				throw new TypeError('predicate must be a function');
			for (var k = 0; k < len; k++) {
				var i = fromEnd ? len - 1 - k : k;
				if (pred.call(thisArg, o[i], i, o))
					return wantIndex ? i : o[i];
			}
			return wantIndex ? -1 : undefined;
		};
	}
	define(AP, 'find', finder(false, false));
	define(AP, 'findIndex', finder(false, true));
	define(AP, 'findLast', finder(true, false));
	define(AP, 'findLastIndex', finder(true, true));

	define(AP, 'includes', function (search, fromIndex) {
		var o = Object(this), len = toLength(o.length);
		if (len === 0)
			return false;
		var n = toInteger(fromIndex), k = n >= 0 ? n : Math.max(len + n, 0);
		for (; k < len; k++)
			if (sameValueZero(o[k], search))
				return true;
		return false;
	});

	define(AP, 'fill', function (value, start, end) {
		var o = Object(this), len = toLength(o.length);
		var s = toInteger(start), e = end === undefined ? len : toInteger(end);
		var k = s < 0 ? Math.max(len + s, 0) : Math.min(s, len);
		var fin = e < 0 ? Math.max(len + e, 0) : Math.min(e, len);
		for (; k < fin; k++)
			o[k] = value;
		return o;
	});

	function flatten(target, source, depth) {
		for (var i = 0; i < source.length; i++) {
			if (!(i in source))
				continue;
			var v = source[i];
			if (depth > 0 && Array.isArray(v))
				flatten(target, v, depth - 1);
			else
				target.push(v);
		}
		return target;
	}
	define(AP, 'flat', function (depth) {
		return flatten([], Object(this), depth === undefined ? 1 : toInteger(depth));
	});
	define(AP, 'flatMap', function (fn, thisArg) {
		if (!isCallable(fn))
			throw new TypeError('flatMap: the callback must be a function');
		return flatten([], AP.map.call(Object(this), fn, thisArg), 1);
	});
	define(AP, 'at', function (index) {
		var o = Object(this), len = toLength(o.length), k = toInteger(index);
		k = k >= 0 ? k : len + k;
		return k < 0 || k >= len ? undefined : o[k];
	});

	/* ES2023's copying methods: the array is left as it was. */
	function copyOf(o) {
		o = Object(o);
		var len = toLength(o.length), out = new Array(len);
		for (var i = 0; i < len; i++)
			out[i] = o[i];
		return out;
	}
	define(AP, 'toSorted', function (compare) {
		if (compare !== undefined && !isCallable(compare))
			throw new TypeError('toSorted: the comparator must be a function');
		return AP.sort.call(copyOf(this), compare);
	});
	define(AP, 'toReversed', function () { return AP.reverse.call(copyOf(this)); });
	define(AP, 'toSpliced', function () {
		var out = copyOf(this);
		AP.splice.apply(out, arguments);
		return out;
	});
	define(AP, 'with', function (index, value) {
		var out = copyOf(this), k = toInteger(index);
		k = k >= 0 ? k : out.length + k;
		if (k < 0 || k >= out.length)
			throw new RangeError('Invalid index : ' + index);
		out[k] = value;
		return out;
	});

	/* ---- Object, String */

	define(Object, 'entries', function (o) {
		var keys = Object.keys(o), out = [];
		for (var i = 0; i < keys.length; i++)
			out.push([keys[i], o[keys[i]]]);
		return out;
	});
	define(Object, 'values', function (o) {
		var keys = Object.keys(o), out = [];
		for (var i = 0; i < keys.length; i++)
			out.push(o[keys[i]]);
		return out;
	});
	define(Object, 'fromEntries', function (iterable) {
		var out = {};
		forOf(iterable, function (entry) {
			if (Object(entry) !== entry)
				throw new TypeError('Object.fromEntries: each entry must be an object');
			out[entry[0]] = entry[1];
		});
		return out;
	});
	define(Object, 'hasOwn', function (o, k) { return hasOwn.call(Object(o), k); });

	function pad(atStart) {
		return function (maxLength, fill) {
			var s = String(this), len = toLength(maxLength);
			var f = fill === undefined ? ' ' : String(fill);
			if (len <= s.length || f === '')
				return s;
			var need = len - s.length, filler = '';
			while (filler.length < need)
				filler += f;
			filler = filler.slice(0, need);
			return atStart ? filler + s : s + filler;
		};
	}
	var SP = String.prototype;
	/* The tag for template literals' raw text. */
	define(String, 'raw', function (strings) {
		var raw = Object(Object(strings).raw), n = toLength(raw.length), out = '';
		for (var i = 0; i < n; i++) {
			out += String(raw[i]);
			if (i + 1 < n && i + 1 < arguments.length)
				out += String(arguments[i + 1]);
		}
		return out;
	});
	define(SP, 'padStart', pad(true));
	define(SP, 'padEnd', pad(false));
	define(SP, 'trimStart', function () { return String(this).replace(/^[\s\uFEFF\xA0]+/, ''); });
	define(SP, 'trimEnd', function () { return String(this).replace(/[\s\uFEFF\xA0]+$/, ''); });
	define(SP, 'trimLeft', SP.trimStart);
	define(SP, 'trimRight', SP.trimEnd);
	define(SP, 'at', function (index) {
		var s = String(this), k = toInteger(index);
		k = k >= 0 ? k : s.length + k;
		return k < 0 || k >= s.length ? undefined : s.charAt(k);
	});
	/* Every match of a global expression, as an iterator. */
	define(SP, 'matchAll', function (re) {
		if (!(re instanceof RegExp) || !re.global)
			throw new TypeError('matchAll must be called with a global RegExp');
		var s = String(this), copy = new RegExp(re.source, 'g'), out = [], m;
		if (re.exec !== RegExp.prototype.exec)
			copy.exec = re.exec;
		if (re[GROUPS])
			Object.defineProperty(copy, GROUPS, {value: re[GROUPS]});
		copy.lastIndex = re.lastIndex;
		while ((m = copy.exec(s)) !== null) {
			out.push(m);
			if (m[0] === '')
				copy.lastIndex++;
		}
		return out[ITERATOR]();
	});
	define(SP, 'replaceAll', function (search, replacement) {
		var s = String(this);
		if (search instanceof RegExp) {
			if (!search.global)
				throw new TypeError('replaceAll must be called with a global RegExp');
			return s.replace(search, replacement);
		}
		var pattern = String(search), out = '', from = 0, at;
		if (pattern === '')
			return s.split('').join(isCallable(replacement) ? '' : String(replacement));
		while ((at = s.indexOf(pattern, from)) !== -1) {
			out += s.slice(from, at) +
			       (isCallable(replacement) ? String(replacement(pattern, at, s))
							: String(replacement).replace(/\$&/g, pattern));
			from = at + pattern.length;
		}
		return out + s.slice(from);
	});

	/* ---- Map and Set: a linked list of entries (insertion order, and
	 * iterators that survive deletes), indexed for primitives by a typed
	 * key and for objects by a hidden per-object id. */

	var ID = hidden.id;
	var nextId = 1;

	function indexKey(k) {
		switch (typeof k) {
		case 'string': return 's' + k;
		case 'number': return k !== k ? 'NaN' : 'n' + (k === 0 ? 0 : k); /* -0 is +0 */
		case 'boolean': return 'b' + k;
		case 'undefined': return 'u';
		case 'symbol': return null;
		}
		if (k === null)
			return 'l';
		if (!hasOwn.call(k, ID)) {
			if (!Object.isExtensible(k))
				return null; /* frozen: found by a linear search */
			defineProperty(k, ID, {value: nextId++});
		}
		return 'o' + k[ID];
	}

	function Table() {
		this.head = {removed: false, next: null, prev: null};
		this.tail = this.head;
		this.index = Object.create(null);
		this.size = 0;
	}
	Table.prototype.find = function (key) {
		var ik = indexKey(key);
		if (ik !== null)
			return this.index[ik] || null;
		for (var e = this.head.next; e; e = e.next)
			if (!e.removed && sameValueZero(e.key, key))
				return e;
		return null;
	};
	Table.prototype.add = function (key, value) {
		var e = {key: key, value: value, next: null, prev: this.tail, removed: false};
		this.tail.next = e;
		this.tail = e;
		var ik = indexKey(key);
		if (ik !== null)
			this.index[ik] = e;
		this.size++;
		return e;
	};
	Table.prototype.remove = function (e) {
		var ik = indexKey(e.key);
		if (ik !== null)
			delete this.index[ik];
		e.removed = true;
		this.size--;
		/* Out of the list, but e keeps its next: an iterator standing on
		 * it goes on. The tail stays, so entries added later are reached. */
		if (e !== this.tail) {
			e.prev.next = e.next;
			e.next.prev = e.prev;
		}
	};
	Table.prototype.clear = function () {
		for (var e = this.head.next; e; e = e.next)
			if (!e.removed)
				this.remove(e);
	};
	Table.prototype.iterator = function (kind) {
		var at = this.head, type = this.kind;
		return makeIterator(function () {
			while (at && at.next) {
				at = at.next;
				if (!at.removed)
					return {value: kind === 'keys' ? at.key : kind === 'values' ? at.value
									    : [at.key, at.value],
						done: false};
			}
			at = null;
			return {value: undefined, done: true};
		}, type + ' Iterator', function () {
			var list = [];
			for (var e = at; e && e.next;) {
				e = e.next;
				if (!e.removed)
					list.push(kind === 'keys' ? e.key : kind === 'values' ? e.value
								   : [e.key, e.value]);
			}
			return {type: type, entries: kind === 'entries', list: list};
		});
	};

	var TABLE = hidden.table;

	function table(o, what) {
		var t = o !== null && typeof o === 'object' ? o[TABLE] : undefined;
		if (!t || t.kind !== what)
			throw new TypeError('method called on an object that is not a ' + what);
		return t;
	}

	function makeTable(self, kind) {
		var t = new Table();
		t.kind = kind;
		defineProperty(self, TABLE, {value: t});
		return t;
	}

	function Map(iterable) {
		if (!(this instanceof Map))
			throw new TypeError('Constructor Map requires new');
		var t = makeTable(this, 'Map'), self = this;
		if (iterable != null)
			forOf(iterable, function (entry) {
				if (Object(entry) !== entry)
					throw new TypeError('Iterator value ' + entry + ' is not an entry object');
				self.set(entry[0], entry[1]);
			});
		void t;
	}
	var MP = Map.prototype;
	define(MP, 'get', function (k) { var e = table(this, 'Map').find(k); return e ? e.value : undefined; });
	define(MP, 'has', function (k) { return !!table(this, 'Map').find(k); });
	define(MP, 'set', function (k, v) {
		var t = table(this, 'Map'), e = t.find(k);
		if (e)
			e.value = v;
		else
			t.add(k === 0 ? 0 : k, v);
		return this;
	});
	define(MP, 'delete', function (k) {
		var t = table(this, 'Map'), e = t.find(k);
		if (!e)
			return false;
		t.remove(e);
		return true;
	});
	define(MP, 'clear', function () { table(this, 'Map').clear(); });
	define(MP, 'forEach', function (fn, thisArg) {
		var it = table(this, 'Map').iterator('entries'), step;
		while (!(step = it.next()).done)
			fn.call(thisArg, step.value[1], step.value[0], this);
	});
	define(MP, 'keys', function () { return table(this, 'Map').iterator('keys'); });
	define(MP, 'values', function () { return table(this, 'Map').iterator('values'); });
	define(MP, 'entries', function () { return table(this, 'Map').iterator('entries'); });
	define(MP, ITERATOR, MP.entries);
	defineProperty(MP, 'size', {get: function () { return table(this, 'Map').size; },
				    configurable: true});
	tag(MP, 'Map');
	/* JSON.stringify(new Map()) is {} in every engine; console.log shows more. */

	function Set(iterable) {
		if (!(this instanceof Set))
			throw new TypeError('Constructor Set requires new');
		makeTable(this, 'Set');
		var self = this;
		if (iterable != null)
			forOf(iterable, function (v) { self.add(v); });
	}
	var SetP = Set.prototype;
	define(SetP, 'has', function (v) { return !!table(this, 'Set').find(v); });
	define(SetP, 'add', function (v) {
		var t = table(this, 'Set');
		if (!t.find(v))
			t.add(v === 0 ? 0 : v, v === 0 ? 0 : v);
		return this;
	});
	define(SetP, 'delete', function (v) {
		var t = table(this, 'Set'), e = t.find(v);
		if (!e)
			return false;
		t.remove(e);
		return true;
	});
	define(SetP, 'clear', function () { table(this, 'Set').clear(); });
	define(SetP, 'forEach', function (fn, thisArg) {
		var it = table(this, 'Set').iterator('values'), step;
		while (!(step = it.next()).done)
			fn.call(thisArg, step.value, step.value, this);
	});
	define(SetP, 'values', function () { return table(this, 'Set').iterator('values'); });
	define(SetP, 'keys', SetP.values);
	define(SetP, 'entries', function () { return table(this, 'Set').iterator('entries'); });
	define(SetP, ITERATOR, SetP.values);
	defineProperty(SetP, 'size', {get: function () { return table(this, 'Set').size; },
				      configurable: true});
	tag(SetP, 'Set');

	/* WeakMap and WeakSet: the value lives on the key, under a symbol of
	 * the collection's own, so the collection holds no key alive. Frozen
	 * keys fall back to a list (held strongly: the worker is short-lived). */
	function weak(kind) {
		function W(iterable) {
			if (!(this instanceof W))
				throw new TypeError('Constructor ' + kind + ' requires new');
			defineProperty(this, TABLE, {value: {kind: kind, sym: hidden.fresh(), frozen: []}});
			var self = this;
			if (iterable != null)
				forOf(iterable, function (v) {
					if (kind === 'WeakMap')
						self.set(v[0], v[1]);
					else
						self.add(v);
				});
		}
		function slot(self, key, create) {
			var t = table(self, kind);
			if (Object(key) !== key)
				throw new TypeError('Invalid value used as ' + kind + ' key');
			if (hasOwn.call(key, t.sym))
				return key[t.sym];
			for (var i = 0; i < t.frozen.length; i++)
				if (t.frozen[i].key === key)
					return t.frozen[i];
			if (!create)
				return null;
			var s = {key: key, value: undefined, present: false};
			if (Object.isExtensible(key))
				defineProperty(key, t.sym, {value: s});
			else
				t.frozen.push(s);
			return s;
		}
		function lookup(self, key) {
			return Object(key) === key ? slot(self, key, false) : null;
		}
		/* Named as the built-in it stands for (Node prints it). */
		defineProperty(W, 'name', {value: kind, configurable: true});
		var P = W.prototype;
		define(P, 'has', function (k) { var s = lookup(this, k); return !!(s && s.present); });
		define(P, 'delete', function (k) {
			var s = lookup(this, k);
			if (!s || !s.present)
				return false;
			s.present = false;
			s.value = undefined;
			return true;
		});
		if (kind === 'WeakMap') {
			define(P, 'get', function (k) { var s = lookup(this, k); return s && s.present ? s.value : undefined; });
			define(P, 'set', function (k, v) {
				var s = slot(this, k, true);
				s.value = v;
				s.present = true;
				return this;
			});
		} else {
			define(P, 'add', function (k) { slot(this, k, true).present = true; return this; });
		}
		tag(P, kind);
		return W;
	}

	/* ---- Promise, with a microtask queue the engine drains */

	var jobs = [], jobHead = 0;

	/* notify tells the engine the queue is no longer empty, so that it
	 * runs drain only for scripts that used promises at all. */
	function enqueue(job) {
		if (jobHead === jobs.length)
			notify();
		jobs.push(job);
	}

	/* Runs every queued job, and those they queue, in order. */
	function drain() {
		while (jobHead < jobs.length) {
			var job = jobs[jobHead];
			jobs[jobHead++] = undefined;
			job();
		}
		jobs = [];
		jobHead = 0;
	}

	var STATE = hidden.promise;
	var PENDING = 0, FULFILLED = 1, REJECTED = 2;

	function isPromise(p) {
		return p !== null && typeof p === 'object' && hasOwn.call(p, STATE);
	}

	function settle(p, state, value) {
		var s = p[STATE];
		if (s.state !== PENDING)
			return;
		s.state = state;
		s.value = value;
		var reactions = s.reactions;
		s.reactions = null;
		for (var i = 0; i < reactions.length; i++)
			schedule(reactions[i], state, value);
	}

	function schedule(reaction, state, value) {
		enqueue(function () {
			var handler = state === FULFILLED ? reaction.onFulfilled : reaction.onRejected;
			if (!isCallable(handler)) {
				(state === FULFILLED ? reaction.resolve : reaction.reject)(value);
				return;
			}
			var result;
			try {
				result = handler(value);
			} catch (e) {
				reaction.reject(e);
				return;
			}
			reaction.resolve(result);
		});
	}

	/* The resolving functions of p: the first call wins. They are
	 * anonymous, as the specification's are (name ""). */
	function resolvers(p) {
		var done = false;
		return {
			resolve: function (x) {
				if (done)
					return;
				done = true;
				resolveWith(p, x);
			},
			reject: function (r) {
				if (done)
					return;
				done = true;
				settle(p, REJECTED, r);
			}
		};
	}

	function resolveWith(p, x) {
		if (x === p) {
			settle(p, REJECTED, new TypeError('Chaining cycle detected for promise'));
			return;
		}
		if (x === null || (typeof x !== 'object' && typeof x !== 'function')) {
			settle(p, FULFILLED, x);
			return;
		}
		var then;
		try {
			then = x.then;
		} catch (e) {
			settle(p, REJECTED, e);
			return;
		}
		if (!isCallable(then)) {
			settle(p, FULFILLED, x);
			return;
		}
		/* A thenable is followed in a job of its own, as the spec says. */
		enqueue(function () {
			var r = resolvers(p);
			try {
				then.call(x, r.resolve, r.reject);
			} catch (e) {
				r.reject(e);
			}
		});
	}

	function Promise(executor) {
		if (!(this instanceof Promise))
			throw new TypeError("Promise constructor cannot be invoked without 'new'");
		if (!isCallable(executor))
			throw new TypeError('Promise resolver ' + executor + ' is not a function');
		defineProperty(this, STATE, {value: {state: PENDING, value: undefined, reactions: []}});
		var r = resolvers(this);
		try {
			executor(r.resolve, r.reject);
		} catch (e) {
			r.reject(e);
		}
	}

	function deferred() {
		var d = {};
		d.promise = new Promise(function (resolve, reject) {
			d.resolve = resolve;
			d.reject = reject;
		});
		return d;
	}

	var PP = Promise.prototype;
	define(PP, 'then', function (onFulfilled, onRejected) {
		if (!isPromise(this))
			throw new TypeError('Promise.prototype.then called on a non-promise');
		var d = deferred(), s = this[STATE];
		var reaction = {onFulfilled: onFulfilled, onRejected: onRejected,
				resolve: d.resolve, reject: d.reject};
		if (s.state === PENDING)
			s.reactions.push(reaction);
		else
			schedule(reaction, s.state, s.value);
		return d.promise;
	});
	define(PP, 'catch', function (onRejected) { return this.then(undefined, onRejected); });
	define(PP, 'finally', function (onFinally) {
		if (!isCallable(onFinally))
			return this.then(onFinally, onFinally);
		return this.then(function (v) {
			return Promise.resolve(onFinally()).then(function () { return v; });
		}, function (e) {
			return Promise.resolve(onFinally()).then(function () { throw e; });
		});
	});
	tag(PP, 'Promise');

	define(Promise, 'resolve', function (x) {
		if (isPromise(x) && x.constructor === Promise)
			return x;
		var d = deferred();
		d.resolve(x);
		return d.promise;
	});
	define(Promise, 'reject', function (r) {
		var d = deferred();
		d.reject(r);
		return d.promise;
	});

	function combinator(name, onEach, onEmpty) {
		return function (iterable) {
			var d = deferred(), items = [];
			try {
				forOf(iterable, function (v) { items.push(v); });
			} catch (e) {
				d.reject(e);
				return d.promise;
			}
			var state = {left: items.length, results: new Array(items.length), d: d};
			if (items.length === 0)
				onEmpty(state);
			for (var i = 0; i < items.length; i++)
				onEach(Promise.resolve(items[i]), i, state);
			return d.promise;
		};
	}

	define(Promise, 'all', combinator('all', function (p, i, s) {
		p.then(function (v) {
			s.results[i] = v;
			if (--s.left === 0)
				s.d.resolve(s.results);
		}, s.d.reject);
	}, function (s) { s.d.resolve([]); }));

	define(Promise, 'allSettled', combinator('allSettled', function (p, i, s) {
		function done(r) {
			s.results[i] = r;
			if (--s.left === 0)
				s.d.resolve(s.results);
		}
		p.then(function (v) { done({status: 'fulfilled', value: v}); },
		       function (e) { done({status: 'rejected', reason: e}); });
	}, function (s) { s.d.resolve([]); }));

	define(Promise, 'race', combinator('race', function (p, i, s) {
		p.then(s.d.resolve, s.d.reject);
	}, function () {}));

	function AggregateError(errors, message) {
		var e = new Error(message === undefined ? 'All promises were rejected' : message);
		/* A subclass's object (see the runtime's constructWith) keeps its
		 * prototype. */
		Object.setPrototypeOf(e, this instanceof AggregateError ? Object.getPrototypeOf(this)
									 : AggregateError.prototype);
		define(e, 'errors', Array.from(errors));
		return e;
	}
	AggregateError.prototype = Object.create(Error.prototype);
	define(AggregateError.prototype, 'constructor', AggregateError);
	define(AggregateError.prototype, 'name', 'AggregateError');

	define(Promise, 'any', combinator('any', function (p, i, s) {
		p.then(s.d.resolve, function (e) {
			s.results[i] = e;
			if (--s.left === 0)
				s.d.reject(new AggregateError(s.results));
		});
	}, function (s) { s.d.reject(new AggregateError([])); }));

	define(global, 'Map', Map);
	define(global, 'Set', Set);
	define(global, 'WeakMap', weak('WeakMap'));
	define(global, 'WeakSet', weak('WeakSet'));
	define(global, 'Promise', Promise);
	if (!('description' in Symbol.prototype))
		defineProperty(Symbol.prototype, 'description', {configurable: true, get: function () {
			var d = Symbol.prototype.toString.call(this).slice(7, -1);
			return d || hidden.described(Symbol.prototype.valueOf.call(this)) ? d : undefined;
		}});
	/* caller and arguments: %ThrowTypeError% accessors on Function.prototype
	 * alone (AddRestrictedFunctionProperties, ES2022 10.2.4), as the engine
	 * no longer gives strict and bound functions their own
	 * (scripts/duk-patch.sh); the one thrower, the engine's, which strict
	 * arguments objects' callee also has. */
	var thrower = Object.getOwnPropertyDescriptor((function () {
		'use strict';
		return arguments;
	})(), 'callee').get;
	defineProperty(Function.prototype, 'caller', {get: thrower, set: thrower, configurable: true});
	defineProperty(Function.prototype, 'arguments', {get: thrower, set: thrower,
							 configurable: true});
	define(global, 'AggregateError', AggregateError);
	define(global, 'queueMicrotask', function (fn) {
		if (!isCallable(fn))
			throw new TypeError('queueMicrotask: the argument must be a function');
		enqueue(function () { fn(); });
	});

	/* What the engine and test mode use. */
	return {
		drain: drain,
		/* {state: "pending" | "fulfilled" | "rejected", value} of a
		 * promise of ours, or undefined for anything else. */
		inspect: function (p) {
			if (!isPromise(p))
				return undefined;
			var s = p[STATE];
			return {state: s.state === PENDING ? 'pending' :
					s.state === FULFILLED ? 'fulfilled' : 'rejected',
				value: s.value};
		},
		forOf: forOf,
		promiseProto: PP
	};
})
