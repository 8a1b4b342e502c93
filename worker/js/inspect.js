/*
 * inspect.js - util.inspect and util.format as Node 20 has them at their
 * defaults (depth 2, breakLength 80, compact 3, maxArrayLength 100,
 * maxStringLength 10000, no colours), for what a script can hold.
 *
 * Runs once, in the forkserver's prepared engine. ES5 only. Evaluates to a
 * function of the polyfills' internals (a promise's state, the tables
 * behind Map and Set), the engine's hidden keys and the global object,
 * returning {inspect,
 * format, formatWithOptions}, which the engine keeps in its stash (the
 * console prints through format). Every built-in it calls is captured here,
 * before any script runs, so a script that replaces one changes nothing of
 * how its values print. Nothing here is reachable from a global.
 *
 * What the engine cannot tell as V8 does: a Proxy is inspected through its
 * traps (Node shows its target without running them); iterators of arrays,
 * Maps and Sets show no entries; an error's stack is the engine's (frames
 * with a line and no column).
 */
(function (internals, keys, global) {
	'use strict';
	var getOwnPropertyNames = Object.getOwnPropertyNames;
	var getOwnPropertySymbols = Object.getOwnPropertySymbols;
	var getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
	var getPrototypeOf = Object.getPrototypeOf;
	var objectKeys = Object.keys;
	var hasOwn = Object.prototype.hasOwnProperty;
	var isEnumerable = Object.prototype.propertyIsEnumerable;
	var objectToString = Object.prototype.toString;
	var isArray = Array.isArray;
	var isView = ArrayBuffer.isView;
	var fnToString = Function.prototype.toString;
	var symbolToString = Symbol.prototype.toString;
	var symbolValueOf = Symbol.prototype.valueOf;
	var numberValueOf = Number.prototype.valueOf;
	var stringValueOf = String.prototype.valueOf;
	var booleanValueOf = Boolean.prototype.valueOf;
	var dateGetTime = Date.prototype.getTime;
	var dateToISOString = Date.prototype.toISOString;
	var dateToString = Date.prototype.toString;
	var regexpToString = RegExp.prototype.toString;
	var regexpExec = RegExp.prototype.exec;
	var errorToString = Error.prototype.toString;
	var jsonStringify = JSON.stringify;
	var ErrorC = Error, ObjectC = Object, StringC = String, NumberC = Number;
	var parseIntF = parseInt, parseFloatF = parseFloat;
	var mathMin = Math.min, mathMax = Math.max, mathSqrt = Math.sqrt;
	var mathRound = Math.round, mathFloor = Math.floor;
	var TO_STRING_TAG = Symbol.toStringTag, ITERATOR = Symbol.iterator;
	var TO_PRIMITIVE = Symbol.toPrimitive;
	var CUSTOM = Symbol['for']('nodejs.util.inspect.custom');
	var TABLE = keys.table, CLASS = keys.cls, GENFN = keys.genfn, ASYNCFN = keys.asyncfn;
	var ITER = keys.iter;
	var promiseState = internals.inspect;
	var bufferByteLength = getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;
	var viewByteLength = getOwnPropertyDescriptor(DataView.prototype, 'byteLength').get;
	var viewByteOffset = getOwnPropertyDescriptor(DataView.prototype, 'byteOffset').get;
	var viewBuffer = getOwnPropertyDescriptor(DataView.prototype, 'buffer').get;
	var Uint8 = Uint8Array;

	var OBJECT_TYPE = 0, ARRAY_TYPE = 1, ARRAY_EXTRAS_TYPE = 2;
	var MIN_LINE_LENGTH = 16;
	var KEY_RE = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
	var INDEX_RE = /^(0|[1-9][0-9]*)$/;

	/* The constructors whose prototypes end the search for a class's own
	 * prototype properties, and make %s inspect an object (Node's
	 * builtInObjects: the language's globals named with a capital, taken
	 * before the web globals are added). */
	var builtIns = Object.create(null);
	(function () {
		var names = getOwnPropertyNames(global);
		for (var i = 0; i < names.length; i++)
			if (/^[A-Z][a-zA-Z0-9]+$/.test(names[i]))
				builtIns[names[i]] = true;
	})();

	/* The text of JSON.stringify's error for a cycle, to tell it apart. */
	var circularMessage = (function () {
		var a = {};
		a.a = a;
		try {
			jsonStringify(a);
		} catch (e) {
			return e.message;
		}
	})();

	var defaults = {showHidden: false, depth: 2, colors: false, customInspect: true,
			showProxy: false, maxArrayLength: 100, maxStringLength: 10000,
			breakLength: 80, compact: 3, sorted: false, getters: false,
			numericSeparator: false};

	/* ---- small helpers */

	function repeat(s, n) {
		var r = '';
		while (n-- > 0)
			r += s;
		return r;
	}

	function join(list, sep) {
		var r = '';
		for (var i = 0; i < list.length; i++)
			r += (i ? sep : '') + list[i];
		return r;
	}

	function includes(s, what) { return s.indexOf(what) !== -1; }

	function padStart(s, n) { return s.length >= n ? s : repeat(' ', n - s.length) + s; }
	function padEnd(s, n) { return s.length >= n ? s : s + repeat(' ', n - s.length); }

	function replaceAll(s, what, by) { return s.split(what).join(by); }

	function tryCall(fn, self) {
		try {
			fn.call(self);
			return true;
		} catch (e) {
			return false;
		}
	}

	function isObjectLike(v) { return v !== null && (typeof v === 'object' || typeof v === 'function'); }

	/* ---- what a value is, by the engine's own brand checks */

	function tableKind(v) {
		var t;
		try {
			t = v[TABLE];
		} catch (e) {
			return undefined;
		}
		return t && typeof t.kind === 'string' ? t.kind : undefined;
	}
	function isDate(v) { return tryCall(dateGetTime, v); }
	function isRegExp(v) {
		return objectToString.call(v) === '[object RegExp]' && tryCall(function () {
			regexpToString.call(this);
		}, v) && !(v instanceof ErrorC) && hasOwn.call(v, 'lastIndex');
	}
	function isError(v) {
		return v instanceof ErrorC || (objectToString.call(v) === '[object Error]' &&
					       !hasOwn.call(v, TO_STRING_TAG));
	}
	function isArrayBuffer(v) { return !isView(v) && tryCall(bufferByteLength, v); }
	/* (The engine's DataView getters accept typed arrays too.) */
	function isDataView(v) {
		return isView(v) && objectToString.call(v) === '[object DataView]' &&
			tryCall(viewByteLength, v);
	}
	function isTypedArray(v) { return isView(v) && !isDataView(v); }
	function boxedType(v) {
		if (tryCall(numberValueOf, v))
			return 'Number';
		if (tryCall(stringValueOf, v))
			return 'String';
		if (tryCall(booleanValueOf, v))
			return 'Boolean';
		if (tryCall(symbolValueOf, v))
			return 'Symbol';
		return undefined;
	}
	function isArguments(v) { return objectToString.call(v) === '[object Arguments]'; }

	/* The engine's class of v, as V8 names it: its Symbol.toStringTag
	 * when that is a string held as data, else as [object X] gives it
	 * without a tag. */
	function className(v) {
		for (var o = v; o !== null; o = getPrototypeOf(o)) {
			var d = getOwnPropertyDescriptor(o, TO_STRING_TAG);
			if (d) {
				if (typeof d.value === 'string')
					return d.value;
				break;
			}
		}
		if (isArray(v))
			return 'Array';
		if (typeof v === 'function')
			return 'Function';
		var k = tableKind(v);
		if (k)
			return k;
		if (isError(v))
			return 'Error';
		if (isDate(v))
			return 'Date';
		if (isRegExp(v))
			return 'RegExp';
		return 'Object';
	}

	/* ---- strings */

	var META = [];
	(function () {
		for (var i = 0; i < 0xa0; i++) {
			var h = i.toString(16).toUpperCase();
			META[i] = i < 0x20 || i >= 0x7f ? '\\x' + (h.length < 2 ? '0' : '') + h : '';
		}
		META[8] = '\\b';
		META[9] = '\\t';
		META[10] = '\\n';
		META[12] = '\\f';
		META[13] = '\\r';
		META[39] = "\\'";
		META[92] = '\\\\';
	})();

	/* s with control characters, the backslash, lone surrogates and (when
	 * quote is 39) the single quote escaped, as strEscape does. */
	function escapeBody(s, quote) {
		var r = '', last = 0;
		for (var i = 0; i < s.length; i++) {
			var c = s.charCodeAt(i);
			if (c === quote || c === 92 || c < 32 || (c > 126 && c < 160)) {
				r += s.slice(last, i) + META[c];
				last = i + 1;
			} else if (c >= 0xd800 && c <= 0xdfff) {
				if (c <= 0xdbff && i + 1 < s.length) {
					var d = s.charCodeAt(i + 1);
					if (d >= 0xdc00 && d <= 0xdfff) {
						i++;
						continue;
					}
				}
				r += s.slice(last, i) + '\\u' + c.toString(16);
				last = i + 1;
			}
		}
		return r + s.slice(last);
	}

	/* s quoted as Node quotes a string: single quotes, else double quotes
	 * when s holds a single quote, else backticks when it holds double
	 * quotes too (and neither a backtick nor "${"). */
	function strEscape(s) {
		var quote = 39;
		if (includes(s, "'")) {
			if (!includes(s, '"'))
				quote = -1;
			else if (!includes(s, '`') && !includes(s, '${'))
				quote = -2;
		}
		var body = escapeBody(s, quote);
		if (quote === -1)
			return '"' + body + '"';
		if (quote === -2)
			return '`' + body + '`';
		return "'" + body + "'";
	}

	/* The escapes of a key that is not quoted (a symbol's description, a
	 * hidden key's name): the single quote included. */
	function escapeKey(s) { return escapeBody(s, 39); }

	function isZeroWidth(c) {
		return c <= 0x1f || (c >= 0x7f && c <= 0x9f) || (c >= 0x300 && c <= 0x36f) ||
			(c >= 0x200b && c <= 0x200f) || (c >= 0x20d0 && c <= 0x20ff) ||
			(c >= 0xfe00 && c <= 0xfe0f) || (c >= 0xfe20 && c <= 0xfe2f) ||
			(c >= 0xe0100 && c <= 0xe01ef);
	}

	function isFullWidth(c) {
		return c >= 0x1100 && (c <= 0x115f || c === 0x2329 || c === 0x232a ||
			(c >= 0x2e80 && c <= 0x3247 && c !== 0x303f) ||
			(c >= 0x3250 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0xa4c6) ||
			(c >= 0xa960 && c <= 0xa97c) || (c >= 0xac00 && c <= 0xd7a3) ||
			(c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe10 && c <= 0xfe19) ||
			(c >= 0xfe30 && c <= 0xfe6b) || (c >= 0xff01 && c <= 0xff60) ||
			(c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1b000 && c <= 0x1b001) ||
			(c >= 0x1f200 && c <= 0x1f251) || (c >= 0x1f300 && c <= 0x1f64f) ||
			(c >= 0x20000 && c <= 0x3fffd));
	}

	/* The columns s takes in a terminal. */
	function stringWidth(s) {
		var w = 0;
		for (var i = 0; i < s.length; i++) {
			var c = s.charCodeAt(i);
			if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
				var d = s.charCodeAt(i + 1);
				if (d >= 0xdc00 && d <= 0xdfff) {
					c = (c - 0xd800) * 0x400 + d - 0xdc00 + 0x10000;
					i++;
				}
			}
			if (c >= 0x20 && c < 0x7f)
				w++;
			else if (isFullWidth(c))
				w += 2;
			else if (!isZeroWidth(c))
				w++;
		}
		return w;
	}

	/* ---- primitives */

	function formatNumber(n) {
		if (n === 0 && 1 / n < 0)
			return '-0';
		return '' + n;
	}

	function remainingText(n) { return '... ' + n + ' more item' + (n > 1 ? 's' : ''); }

	/* s split after each line feed, each piece keeping its own. */
	function splitLines(s) {
		var out = [], at = 0;
		for (;;) {
			var nl = s.indexOf('\n', at);
			if (nl === -1 || nl === s.length - 1) {
				out.push(s.slice(at));
				return out;
			}
			out.push(s.slice(at, nl + 1));
			at = nl + 1;
		}
	}

	function formatPrimitive(value, ctx) {
		switch (typeof value) {
		case 'string':
			var trailer = '';
			if (value.length > ctx.maxStringLength) {
				var more = value.length - ctx.maxStringLength;
				value = value.slice(0, ctx.maxStringLength);
				trailer = '... ' + more + ' more character' + (more > 1 ? 's' : '');
			}
			if (ctx.compact !== true && value.length > MIN_LINE_LENGTH &&
			    value.length > ctx.breakLength - ctx.indentationLvl - 4) {
				var lines = splitLines(value);
				for (var i = 0; i < lines.length; i++)
					lines[i] = strEscape(lines[i]);
				return join(lines, ' +\n' + repeat(' ', ctx.indentationLvl + 2)) + trailer;
			}
			return strEscape(value) + trailer;
		case 'number':
			return formatNumber(value);
		case 'boolean':
			return '' + value;
		case 'undefined':
			return 'undefined';
		case 'symbol':
			return symbolToString.call(value);
		}
		return StringC(value);
	}

	/* ---- constructors and prefixes */

	function isInstance(obj, C) {
		try {
			return obj instanceof C;
		} catch (e) {
			return false;
		}
	}

	/* The name of the nearest constructor on obj's prototype chain that
	 * obj is an instance of; null for a null prototype. Adds a class's
	 * prototype properties to protoProps when that is given (showHidden). */
	function constructorName(obj, ctx, recurseTimes, protoProps) {
		var first, start = obj;
		while (obj) {
			var d = getOwnPropertyDescriptor(obj, 'constructor');
			if (d !== undefined && typeof d.value === 'function' && d.value.name !== '' &&
			    isInstance(start, d.value)) {
				if (protoProps !== undefined &&
				    (first !== obj || builtIns[d.value.name] !== true))
					addPrototypeProperties(ctx, start, first || start, recurseTimes,
							       protoProps);
				return StringC(d.value.name);
			}
			obj = getPrototypeOf(obj);
			if (first === undefined)
				first = obj;
		}
		if (first === null)
			return null;
		var res = className(start);
		if (recurseTimes > ctx.depth && ctx.depth !== null)
			return res + ' <Complex prototype>';
		var proto = constructorName(first, ctx, recurseTimes + 1, protoProps);
		if (proto === null)
			return res + ' <' + inspect(first, copyOptions(ctx, {customInspect: false,
									     depth: -1})) + '>';
		return res + ' <' + proto + '>';
	}

	/* The properties of main's prototypes (up to three, before a built-in
	 * one) that are not functions, for showHidden. */
	function addPrototypeProperties(ctx, main, obj, recurseTimes, output) {
		var depth = 0, list, seen = {};
		do {
			if (depth !== 0 || main === obj) {
				obj = getPrototypeOf(obj);
				if (obj === null)
					return;
				var d = getOwnPropertyDescriptor(obj, 'constructor');
				if (d !== undefined && typeof d.value === 'function' && builtIns[d.value.name] === true)
					return;
			}
			if (depth !== 0)
				for (var j = 0; j < list.length; j++)
					if (typeof list[j] === 'string')
						seen[list[j]] = true;
			list = getOwnPropertyNames(obj).concat(getOwnPropertySymbols(obj));
			ctx.seen.push(main);
			for (var i = 0; i < list.length; i++) {
				var key = list[i];
				if (key === 'constructor' || hasOwn.call(main, key) ||
				    (depth !== 0 && typeof key === 'string' && seen[key] === true))
					continue;
				var desc = getOwnPropertyDescriptor(obj, key);
				if (typeof desc.value === 'function')
					continue;
				output.push(formatProperty(ctx, obj, recurseTimes, key, OBJECT_TYPE, desc, main));
			}
			ctx.seen.pop();
		} while (++depth !== 3);
	}

	function getPrefix(constructor, tag, fallback, size) {
		size = size || '';
		if (constructor === null) {
			if (tag !== '' && fallback !== tag)
				return '[' + fallback + size + ': null prototype] [' + tag + '] ';
			return '[' + fallback + size + ': null prototype] ';
		}
		if (tag !== '' && constructor !== tag)
			return constructor + size + ' [' + tag + '] ';
		return constructor + size + ' ';
	}

	function getCtxStyle(value, constructor, tag) {
		var fallback = '';
		if (constructor === null) {
			fallback = className(value);
			if (fallback === tag)
				fallback = 'Object';
		}
		return getPrefix(constructor, tag, fallback);
	}

	/* Own enumerable keys, symbols after strings (all own keys with
	 * showHidden). */
	function getKeys(value, showHidden) {
		var list = showHidden ? getOwnPropertyNames(value) : objectKeys(value);
		if (showHidden && typeof value === 'function')
			list = functionKeys(list);
		var symbols = getOwnPropertySymbols(value);
		for (var i = 0; i < symbols.length; i++)
			if (showHidden || isEnumerable.call(value, symbols[i]))
				list.push(symbols[i]);
		return list;
	}

	/* A function's own names in V8's order (length, name, prototype
	 * first), without the engine's own fileName, which V8 has not. */
	function functionKeys(list) {
		var first = [], rest = [], order = ['length', 'name', 'prototype'];
		for (var i = 0; i < order.length; i++)
			if (list.indexOf(order[i]) !== -1)
				first.push(order[i]);
		for (i = 0; i < list.length; i++)
			if (order.indexOf(list[i]) === -1 && list[i] !== 'fileName')
				rest.push(list[i]);
		return first.concat(rest);
	}

	/* The keys of an array or typed array that are not indices. */
	function nonIndexKeys(value, showHidden) {
		var all = getKeys(value, showHidden), out = [];
		for (var i = 0; i < all.length; i++) {
			var k = all[i];
			if (typeof k === 'string' && INDEX_RE.test(k) && +k < 4294967295)
				continue;
			/* (The engine's typed arrays have an own length, V8's not.) */
			if (k !== 'length' || isArray(value))
				out.push(k);
		}
		return out;
	}

	/* ---- functions */

	function isClass(fn) {
		if (fn[CLASS] === true)
			return true;
		var src;
		try {
			src = fnToString.call(fn);
		} catch (e) {
			return false;
		}
		return src.slice(0, 5) === 'class' && src.charAt(src.length - 1) === '}';
	}

	function functionType(fn) {
		var gen = fn[GENFN], type = 'Function';
		if (gen === 1 || gen === 2)
			type = 'Generator' + type;
		if (gen === 2 || fn[ASYNCFN] === true)
			type = 'Async' + type;
		return type;
	}

	function getClassBase(value, constructor, tag) {
		var name = (hasOwn.call(value, 'name') && value.name) || '(anonymous)';
		var base = 'class ' + name;
		if (constructor !== 'Function' && constructor !== null)
			base += ' [' + constructor + ']';
		if (tag !== '' && constructor !== tag)
			base += ' [' + tag + ']';
		if (constructor !== null) {
			var parent = getPrototypeOf(value), superName = parent && parent.name;
			if (superName)
				base += ' extends ' + superName;
		} else {
			base += ' extends [null prototype]';
		}
		return '[' + base + ']';
	}

	function getFunctionBase(value, constructor, tag) {
		if (isClass(value))
			return getClassBase(value, constructor, tag);
		var type = functionType(value), base = '[' + type;
		/* The runtime's prototypes of generator and async functions have
		 * no constructor of their own, V8's have GeneratorFunction and
		 * the like: the name inherited from Function stands for it. */
		if (constructor === 'Function' && type !== 'Function') {
			constructor = type;
			if (tag === type)
				tag = '';
		}
		if (constructor === null)
			base += ' (null prototype)';
		var name = value.name;
		if (name === '' || name === undefined)
			base += ' (anonymous)';
		else
			base += ': ' + name;
		base += ']';
		if (constructor !== type && constructor !== null)
			base += ' ' + constructor;
		if (tag !== '' && constructor !== tag)
			base += ' [' + tag + ']';
		return base;
	}

	/* ---- errors */

	function stackOf(err) {
		var s;
		try {
			s = err.stack;
		} catch (e) {
			s = undefined;
		}
		return s ? StringC(s) : errorToString.call(err);
	}

	/* The index of b's first run of more than three entries equal to a's,
	 * from a's offset. */
	function identicalSequenceRange(a, b) {
		for (var i = 0; i < a.length - 3; i++) {
			var pos = b.indexOf(a[i]);
			if (pos !== -1) {
				var rest = b.length - pos;
				if (rest > 3) {
					var len = 1, maxLen = mathMin(a.length - i, rest);
					while (maxLen > len && a[i + len] === b[pos + len])
						len++;
					if (len > 3)
						return {len: len, offset: i};
				}
			}
		}
		return {len: 0, offset: 0};
	}

	function stackFrames(err, stack) {
		var frames = stack.split('\n'), cause;
		try {
			cause = err.cause;
		} catch (e) {
			cause = undefined;
		}
		if (cause != null && isObjectLike(cause) && isError(cause)) {
			var causeStack = stackOf(cause), at = causeStack.indexOf('\n    at');
			if (at !== -1) {
				var causeFrames = causeStack.slice(at + 1).split('\n');
				var r = identicalSequenceRange(frames, causeFrames);
				if (r.len > 0) {
					var skipped = r.len - 2;
					frames.splice(r.offset + 1, skipped, '    ... ' + skipped +
						      ' lines matching cause stack trace ...');
				}
			}
		}
		return frames;
	}

	/* The stack with its first word the error's constructor and name, when
	 * these differ, as Node shows them. */
	function improveStack(stack, constructor, name, tag) {
		var len = name.length;
		if (constructor === null ||
		    (name.slice(-5) === 'Error' && stack.slice(0, len) === name &&
		     (stack.length === len || stack.charAt(len) === ':' || stack.charAt(len) === '\n'))) {
			var fallback = 'Error';
			if (constructor === null) {
				var start = /^([A-Z][a-z_ A-Z0-9[\]()-]+)(?::|\n {4}at)/.exec(stack) ||
					/^([a-z_A-Z0-9-]*Error)$/.exec(stack);
				fallback = (start && start[1]) || '';
				len = fallback.length;
				fallback = fallback || 'Error';
			}
			var prefix = getPrefix(constructor, tag, fallback).slice(0, -1);
			if (name !== prefix) {
				if (includes(prefix, name)) {
					if (len === 0)
						stack = prefix + ': ' + stack;
					else
						stack = prefix + stack.slice(len);
				} else {
					stack = prefix + ' [' + name + ']' + stack.slice(len);
				}
			}
		}
		return stack;
	}

	function formatError(err, constructor, tag, ctx, list) {
		var name = err.name != null ? StringC(err.name) : 'Error';
		var stack = stackOf(err);
		if (!ctx.showHidden && list.length !== 0) {
			var dup = ['name', 'message', 'stack'];
			for (var i = 0; i < dup.length; i++) {
				var at = list.indexOf(dup[i]);
				if (at !== -1 && includes(stack, err[dup[i]]))
					list.splice(at, 1);
			}
		}
		if ('cause' in err && list.indexOf('cause') === -1)
			list.push('cause');
		if (isArray(err.errors) && list.indexOf('errors') === -1)
			list.push('errors');
		stack = improveStack(stack, constructor, name, tag);
		var message = err.message;
		var pos = (message && stack.indexOf(message)) || -1;
		if (pos !== -1)
			pos += message.length;
		var stackStart = stack.indexOf('\n    at', pos);
		if (stackStart === -1) {
			stack = '[' + stack + ']';
		} else {
			var head = stack.slice(0, stackStart);
			var lines = stackFrames(err, stack.slice(stackStart + 1));
			stack = head + '\n' + join(lines, '\n');
		}
		if (ctx.indentationLvl !== 0)
			stack = replaceAll(stack, '\n', '\n' + repeat(' ', ctx.indentationLvl));
		return stack;
	}

	/* ---- the value */

	function copyOptions(ctx, extra) {
		var o = {}, k;
		for (k in defaults)
			if (hasOwn.call(defaults, k))
				o[k] = ctx[k];
		for (k in extra)
			if (hasOwn.call(extra, k))
				o[k] = extra[k];
		return o;
	}

	/* The options a custom inspect function receives. */
	function userOptions(ctx) {
		var o = copyOptions(ctx, {});
		o.stylize = function (s) { return StringC(s); };
		if (ctx.userOptions !== undefined) {
			var k = objectKeys(ctx.userOptions);
			for (var i = 0; i < k.length; i++)
				if (!hasOwn.call(o, k[i]))
					o[k[i]] = ctx.userOptions[k[i]];
		}
		return o;
	}

	function formatValue(ctx, value, recurseTimes, typedArray) {
		if (typeof value !== 'object' && typeof value !== 'function')
			return formatPrimitive(value, ctx);
		if (value === null)
			return 'null';
		if (ctx.customInspect) {
			var custom;
			try {
				custom = value[CUSTOM];
			} catch (e) {
				custom = undefined;
			}
			if (typeof custom === 'function' && custom !== inspect &&
			    !(value.constructor && value.constructor.prototype === value)) {
				var depth = ctx.depth === null ? null : ctx.depth - recurseTimes;
				var ret = custom.call(value, depth, userOptions(ctx), inspect);
				if (ret !== value) {
					if (typeof ret !== 'string')
						return formatValue(ctx, ret, recurseTimes);
					return replaceAll(ret, '\n', '\n' + repeat(' ', ctx.indentationLvl));
				}
			}
		}
		if (ctx.seen.indexOf(value) !== -1) {
			var index = 1;
			if (ctx.circular === undefined) {
				ctx.circular = {objects: [value], ids: [1]};
			} else {
				var at = ctx.circular.objects.indexOf(value);
				if (at === -1) {
					index = ctx.circular.objects.length + 1;
					ctx.circular.objects.push(value);
					ctx.circular.ids.push(index);
				} else {
					index = ctx.circular.ids[at];
				}
			}
			return '[Circular *' + index + ']';
		}
		return formatRaw(ctx, value, recurseTimes, typedArray);
	}

	function ownTag(value, ctx) {
		var tag;
		try {
			tag = value[TO_STRING_TAG];
		} catch (e) {
			return '';
		}
		if (typeof tag !== 'string' ||
		    (tag !== '' && (ctx.showHidden ? hasOwn : isEnumerable).call(value, TO_STRING_TAG)))
			return '';
		return tag;
	}

	function formatRaw(ctx, value, recurseTimes, typedArray) {
		var list, protoProps;
		if (ctx.showHidden && (recurseTimes <= ctx.depth || ctx.depth === null))
			protoProps = [];
		var constructor = constructorName(value, ctx, recurseTimes, protoProps);
		if (protoProps !== undefined && protoProps.length === 0)
			protoProps = undefined;
		var tag = ownTag(value, ctx);
		var base = '', formatter = formatNothing, braces, noIterator = true;
		var extrasType = OBJECT_TYPE, kind = tableKind(value);
		var prefix, size, rest;

		/* (The engine's typed arrays have no iterator of their own.) */
		if (ITERATOR in value || constructor === null || isTypedArray(value)) {
			noIterator = false;
			if (isArray(value)) {
				prefix = (constructor !== 'Array' || tag !== '') ?
					getPrefix(constructor, tag, 'Array', '(' + value.length + ')') : '';
				list = nonIndexKeys(value, ctx.showHidden);
				braces = [prefix + '[', ']'];
				if (value.length === 0 && list.length === 0 && protoProps === undefined)
					return braces[0] + ']';
				extrasType = ARRAY_EXTRAS_TYPE;
				formatter = formatArray;
			} else if (kind === 'Set' || kind === 'Map') {
				size = value[TABLE].size;
				prefix = getPrefix(constructor, tag, kind, '(' + size + ')');
				list = getKeys(value, ctx.showHidden);
				formatter = kind === 'Set' ? formatSet : formatMap;
				if (size === 0 && list.length === 0 && protoProps === undefined)
					return prefix + '{}';
				braces = [prefix + '{', '}'];
			} else if ((rest = iteratorRest(value)) !== undefined) {
				list = getKeys(value, ctx.showHidden);
				braces = getIteratorBraces(rest.type, tag);
				if (rest.entries)
					braces[0] = braces[0].replace(/ Iterator\] \{$/, ' Entries] {');
				formatter = formatIterator;
			} else if (isTypedArray(value)) {
				list = nonIndexKeys(value, ctx.showHidden);
				var fallback = '';
				if (constructor === null)
					fallback = objectToString.call(value).slice(8, -1);
				size = value.length;
				prefix = getPrefix(constructor, tag, fallback, '(' + size + ')');
				braces = [prefix + '[', ']'];
				if (value.length === 0 && list.length === 0 && !ctx.showHidden)
					return braces[0] + ']';
				formatter = formatTypedArray;
				extrasType = ARRAY_EXTRAS_TYPE;
			} else {
				noIterator = true;
			}
		}
		if (noIterator) {
			list = getKeys(value, ctx.showHidden);
			braces = ['{', '}'];
			var boxed;
			if (typeof value === 'function') {
				base = getFunctionBase(value, constructor, tag);
				if (list.length === 0 && protoProps === undefined)
					return base;
			} else if (constructor === 'Object' && !isError(value) && !isDate(value) &&
				   !isRegExp(value) && !boxedType(value) && !kind &&
				   promiseState(value) === undefined) {
				if (isArguments(value))
					braces[0] = '[Arguments] {';
				else if (tag !== '')
					braces[0] = getPrefix(constructor, tag, 'Object') + '{';
				if (list.length === 0 && protoProps === undefined)
					return braces[0] + '}';
			} else if (isRegExp(value)) {
				base = regexpToString.call(constructor !== null ? value : new RegExp(value));
				prefix = getPrefix(constructor, tag, 'RegExp');
				if (prefix !== 'RegExp ')
					base = prefix + base;
				if ((list.length === 0 && protoProps === undefined) ||
				    (recurseTimes > ctx.depth && ctx.depth !== null))
					return base;
			} else if (isDate(value)) {
				var t = dateGetTime.call(value);
				base = t !== t ? dateToString.call(value) : dateToISOString.call(value);
				prefix = getPrefix(constructor, tag, 'Date');
				if (prefix !== 'Date ')
					base = prefix + base;
				if (list.length === 0 && protoProps === undefined)
					return base;
			} else if (isError(value)) {
				base = formatError(value, constructor, tag, ctx, list);
				if (list.length === 0 && protoProps === undefined)
					return base;
			} else if (isArrayBuffer(value)) {
				prefix = getPrefix(constructor, tag, 'ArrayBuffer');
				if (typedArray === undefined)
					formatter = formatArrayBuffer;
				else if (list.length === 0 && protoProps === undefined)
					return prefix + '{ byteLength: ' + formatNumber(bufferByteLength.call(value)) +
						' }';
				braces[0] = prefix + '{';
				list.unshift('byteLength');
			} else if (isDataView(value)) {
				braces[0] = getPrefix(constructor, tag, 'DataView') + '{';
				list.unshift('byteLength', 'byteOffset', 'buffer');
			} else if (promiseState(value) !== undefined) {
				braces[0] = getPrefix(constructor, tag, 'Promise') + '{';
				formatter = formatPromise;
			} else if (kind === 'WeakSet' || kind === 'WeakMap') {
				braces[0] = getPrefix(constructor, tag, kind) + '{';
				formatter = formatWeak;
			} else if ((boxed = boxedType(value)) !== undefined) {
				base = getBoxedBase(value, ctx, list, constructor, tag, boxed);
				if (list.length === 0 && protoProps === undefined)
					return base;
			} else {
				if (list.length === 0 && protoProps === undefined)
					return getCtxStyle(value, constructor, tag) + '{}';
				braces[0] = getCtxStyle(value, constructor, tag) + '{';
			}
		}

		if (recurseTimes > ctx.depth && ctx.depth !== null) {
			var shown = getCtxStyle(value, constructor, tag).slice(0, -1);
			return constructor !== null ? '[' + shown + ']' : shown;
		}
		recurseTimes += 1;
		ctx.seen.push(value);
		ctx.currentDepth = recurseTimes;
		var output = formatter(ctx, value, recurseTimes);
		for (var i = 0; i < list.length; i++)
			output.push(formatProperty(ctx, value, recurseTimes, list[i], extrasType));
		if (protoProps !== undefined)
			output = output.concat(protoProps);
		if (ctx.circular !== undefined) {
			var at = ctx.circular.objects.indexOf(value);
			if (at !== -1) {
				var reference = '<ref *' + ctx.circular.ids[at] + '>';
				if (ctx.compact !== true)
					base = base === '' ? reference : reference + ' ' + base;
				else
					braces[0] = reference + ' ' + braces[0];
			}
		}
		ctx.seen.pop();
		if (ctx.sorted) {
			var cmp = ctx.sorted === true ? undefined : ctx.sorted;
			if (extrasType === OBJECT_TYPE) {
				output.sort(cmp);
			} else if (list.length > 1) {
				var tail = output.slice(output.length - list.length).sort(cmp);
				output = output.slice(0, output.length - list.length).concat(tail);
			}
		}
		return reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value);
	}

	function formatNothing() { return []; }

	function getBoxedBase(value, ctx, list, constructor, tag, type) {
		var prim;
		if (type === 'Number') {
			prim = numberValueOf.call(value);
		} else if (type === 'String') {
			prim = stringValueOf.call(value);
			list.splice(0, prim.length);
		} else if (type === 'Boolean') {
			prim = booleanValueOf.call(value);
		} else {
			prim = symbolValueOf.call(value);
		}
		var base = '[' + type;
		if (type !== constructor) {
			if (constructor === null)
				base += ' (null prototype)';
			else
				base += ' (' + constructor + ')';
		}
		base += ': ' + formatPrimitive(prim, copyOptions(ctx, {compact: true,
								      indentationLvl: 0})) + ']';
		if (tag !== '' && tag !== constructor)
			base += ' [' + tag + ']';
		return base;
	}

	function formatArrayBuffer(ctx, value) {
		var bytes = new Uint8(value), n = mathMin(ctx.maxArrayLength, bytes.length), hex = [];
		for (var i = 0; i < n; i++)
			hex.push((bytes[i] < 16 ? '0' : '') + bytes[i].toString(16));
		var str = join(hex, ' '), more = bytes.length - ctx.maxArrayLength;
		if (more > 0)
			str += ' ... ' + more + ' more byte' + (more > 1 ? 's' : '');
		return ['[Uint8Contents]: <' + str + '>'];
	}

	/* The entries of a sparse array, or one with keys that are not indices
	 * past its elements, from index i. */
	function formatSpecialArray(ctx, value, recurseTimes, maxLength, output, i) {
		var list = objectKeys(value), index = i;
		for (; i < list.length && output.length < maxLength; i++) {
			var key = list[i], n = +key;
			if (n > 4294967294)
				break;
			if ('' + index !== key) {
				if (!INDEX_RE.test(key))
					break;
				var empty = n - index;
				output.push('<' + empty + ' empty item' + (empty > 1 ? 's' : '') + '>');
				index = n;
				if (output.length === maxLength)
					break;
			}
			output.push(formatProperty(ctx, value, recurseTimes, key, ARRAY_TYPE));
			index++;
		}
		var remaining = value.length - index;
		if (output.length !== maxLength) {
			if (remaining > 0)
				output.push('<' + remaining + ' empty item' + (remaining > 1 ? 's' : '') + '>');
		} else if (remaining > 0) {
			output.push(remainingText(remaining));
		}
		return output;
	}

	function formatArray(ctx, value, recurseTimes) {
		var length = value.length, n = mathMin(mathMax(0, ctx.maxArrayLength), length);
		var output = [];
		for (var i = 0; i < n; i++) {
			if (!hasOwn.call(value, i))
				return formatSpecialArray(ctx, value, recurseTimes, n, output, i);
			output.push(formatProperty(ctx, value, recurseTimes, i, ARRAY_TYPE));
		}
		if (length - n > 0)
			output.push(remainingText(length - n));
		return output;
	}

	function formatTypedArray(ctx, value, recurseTimes) {
		var length = value.length, n = mathMin(mathMax(0, ctx.maxArrayLength), length);
		var output = [];
		for (var i = 0; i < n; i++)
			output.push(formatNumber(value[i]));
		if (length - n > 0)
			output.push(remainingText(length - n));
		if (ctx.showHidden) {
			ctx.indentationLvl += 2;
			var names = ['BYTES_PER_ELEMENT', 'length', 'byteLength', 'byteOffset', 'buffer'];
			for (i = 0; i < names.length; i++)
				output.push('[' + names[i] + ']: ' +
					    formatValue(ctx, value[names[i]], recurseTimes, true));
			ctx.indentationLvl -= 2;
		}
		return output;
	}

	/* Every entry of the table behind a Map or Set, as [key, value]. */
	function tableEntries(value) {
		var it = value[TABLE].iterator('entries'), out = [], step;
		while (!(step = it.next()).done)
			out.push(step.value);
		return out;
	}

	function formatSet(ctx, value, recurseTimes) {
		var entries = tableEntries(value), n = mathMin(mathMax(0, ctx.maxArrayLength),
							      entries.length);
		var output = [];
		ctx.indentationLvl += 2;
		for (var i = 0; i < n; i++)
			output.push(formatValue(ctx, entries[i][1], recurseTimes));
		if (entries.length - n > 0)
			output.push(remainingText(entries.length - n));
		ctx.indentationLvl -= 2;
		return output;
	}

	function formatMap(ctx, value, recurseTimes) {
		var entries = tableEntries(value), n = mathMin(mathMax(0, ctx.maxArrayLength),
							      entries.length);
		var output = [];
		ctx.indentationLvl += 2;
		for (var i = 0; i < n; i++)
			output.push(formatValue(ctx, entries[i][0], recurseTimes) + ' => ' +
				    formatValue(ctx, entries[i][1], recurseTimes));
		if (entries.length - n > 0)
			output.push(remainingText(entries.length - n));
		ctx.indentationLvl -= 2;
		return output;
	}

	function formatWeak() { return ['<items unknown>']; }

	/* What an iterator of a Map or Set has left ({type, entries, list}, see
	 * the polyfills' makeIterator); undefined for anything else. */
	function iteratorRest(v) {
		var rest;
		try {
			rest = hasOwn.call(v, ITER) ? v[ITER] : undefined;
		} catch (e) {
			return undefined;
		}
		return typeof rest === 'function' ? rest() : undefined;
	}

	function getIteratorBraces(type, tag) {
		if (tag !== type + ' Iterator') {
			if (tag !== '')
				tag += '] [';
			tag += type + ' Iterator';
		}
		return ['[' + tag + '] {', '}'];
	}

	/* The entries an iterator has left: pairs as [ k, v ] for entries. */
	function formatIterator(ctx, value, recurseTimes) {
		var rest = iteratorRest(value), list = rest.list;
		var n = mathMin(mathMax(ctx.maxArrayLength, 0), list.length), output = [];
		ctx.indentationLvl += 2;
		for (var i = 0; i < n; i++) {
			if (rest.entries)
				output.push(reduceToSingleString(ctx, [formatValue(ctx, list[i][0], recurseTimes),
					formatValue(ctx, list[i][1], recurseTimes)], '', ['[', ']'],
					ARRAY_EXTRAS_TYPE, recurseTimes));
			else
				output.push(formatValue(ctx, list[i], recurseTimes));
		}
		ctx.indentationLvl -= 2;
		if (list.length - n > 0)
			output.push(remainingText(list.length - n));
		return output;
	}

	function formatPromise(ctx, value, recurseTimes) {
		var s = promiseState(value);
		if (s.state === 'pending')
			return ['<pending>'];
		ctx.indentationLvl += 2;
		var str = formatValue(ctx, s.value, recurseTimes);
		ctx.indentationLvl -= 2;
		return [s.state === 'rejected' ? '<rejected> ' + str : str];
	}

	function formatProperty(ctx, value, recurseTimes, key, type, desc, original) {
		var name, str, extra = ' ';
		if (original === undefined)
			original = value;
		desc = desc || getOwnPropertyDescriptor(value, key) ||
			{value: value[key], enumerable: true};
		if (desc.value !== undefined) {
			var diff = (ctx.compact !== true || type !== OBJECT_TYPE) ? 2 : 3;
			ctx.indentationLvl += diff;
			str = formatValue(ctx, desc.value, recurseTimes);
			if (diff === 3 && ctx.breakLength < stringWidth(str))
				extra = '\n' + repeat(' ', ctx.indentationLvl);
			ctx.indentationLvl -= diff;
		} else if (desc.get !== undefined) {
			var label = desc.set !== undefined ? 'Getter/Setter' : 'Getter';
			if (ctx.getters && (ctx.getters === true ||
					    (ctx.getters === 'get' && desc.set === undefined) ||
					    (ctx.getters === 'set' && desc.set !== undefined))) {
				try {
					var got = desc.get.call(original);
					ctx.indentationLvl += 2;
					if (got === null)
						str = '[' + label + ': null]';
					else if (typeof got === 'object')
						str = '[' + label + '] ' + formatValue(ctx, got, recurseTimes);
					else
						str = '[' + label + ': ' + formatPrimitive(got, ctx) + ']';
					ctx.indentationLvl -= 2;
				} catch (err) {
					str = '[' + label + ': <Inspection threw (' + err.message + ')>]';
				}
			} else {
				str = '[' + label + ']';
			}
		} else if (desc.set !== undefined) {
			str = '[Setter]';
		} else {
			str = 'undefined';
		}
		if (type === ARRAY_TYPE)
			return str;
		if (typeof key === 'symbol')
			name = '[' + escapeKey(symbolToString.call(key)) + ']';
		else if (key === '__proto__')
			name = "['__proto__']";
		else if (desc.enumerable === false)
			name = '[' + escapeKey(key) + ']';
		else if (KEY_RE.test(key))
			name = key;
		else
			name = strEscape(key);
		return name + ':' + extra + str;
	}

	/* ---- line breaking */

	/* Node's grouping of an array of many short entries into columns. */
	function groupArrayElements(ctx, output, value) {
		var totalLength = 0, maxLength = 0, i = 0, outputLength = output.length;
		if (ctx.maxArrayLength < output.length)
			outputLength--;
		var separatorSpace = 2, dataLen = [];
		for (; i < outputLength; i++) {
			var len = stringWidth(output[i]);
			dataLen[i] = len;
			totalLength += len + separatorSpace;
			if (maxLength < len)
				maxLength = len;
		}
		var actualMax = maxLength + separatorSpace;
		if (actualMax * 3 + ctx.indentationLvl < ctx.breakLength &&
		    (totalLength / actualMax > 5 || maxLength <= 6)) {
			var averageBias = mathSqrt(actualMax - totalLength / output.length);
			var biasedMax = mathMax(actualMax - 3 - averageBias, 1);
			var columns = mathMin(
				mathRound(mathSqrt(2.5 * biasedMax * outputLength) / biasedMax),
				mathFloor((ctx.breakLength - ctx.indentationLvl) / actualMax),
				ctx.compact * 4,
				15);
			if (columns <= 1)
				return output;
			var tmp = [], maxLineLength = [];
			for (i = 0; i < columns; i++) {
				var lineMax = 0;
				for (var j = i; j < output.length; j += columns)
					if (dataLen[j] > lineMax)
						lineMax = dataLen[j];
				maxLineLength.push(lineMax + separatorSpace);
			}
			var order = padStart;
			if (value !== undefined) {
				for (i = 0; i < output.length; i++)
					if (typeof value[i] !== 'number') {
						order = padEnd;
						break;
					}
			}
			for (i = 0; i < outputLength; i += columns) {
				var max = mathMin(i + columns, outputLength), str = '';
				j = i;
				for (; j < max - 1; j++) {
					var padding = maxLineLength[j - i] + output[j].length - dataLen[j];
					str += order(output[j] + ', ', padding);
				}
				if (order === padStart) {
					padding = maxLineLength[j - i] + output[j].length - dataLen[j] -
						separatorSpace;
					str += padStart(output[j], padding);
				} else {
					str += output[j];
				}
				tmp.push(str);
			}
			if (ctx.maxArrayLength < output.length)
				tmp.push(output[outputLength]);
			output = tmp;
		}
		return output;
	}

	function isBelowBreakLength(ctx, output, start, base) {
		var total = output.length + start;
		if (total + output.length > ctx.breakLength)
			return false;
		for (var i = 0; i < output.length; i++) {
			total += output[i].length;
			if (total > ctx.breakLength)
				return false;
		}
		return base === '' || !includes(base, '\n');
	}

	function reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value) {
		var indentation;
		if (ctx.compact !== true) {
			if (typeof ctx.compact === 'number' && ctx.compact >= 1) {
				var entries = output.length;
				if (extrasType === ARRAY_EXTRAS_TYPE && entries > 6)
					output = groupArrayElements(ctx, output, value);
				if (ctx.currentDepth - recurseTimes < ctx.compact && entries === output.length) {
					var start = output.length + ctx.indentationLvl + braces[0].length +
						base.length + 10;
					if (isBelowBreakLength(ctx, output, start, base)) {
						var joined = join(output, ', ');
						if (!includes(joined, '\n'))
							return (base ? base + ' ' : '') + braces[0] + ' ' + joined +
								' ' + braces[1];
					}
				}
			}
			indentation = '\n' + repeat(' ', ctx.indentationLvl);
			return (base ? base + ' ' : '') + braces[0] + indentation + '  ' +
				join(output, ',' + indentation + '  ') + indentation + braces[1];
		}
		if (isBelowBreakLength(ctx, output, 0, base))
			return braces[0] + (base ? ' ' + base : '') + ' ' + join(output, ', ') + ' ' +
				braces[1];
		indentation = repeat(' ', ctx.indentationLvl);
		var ln = base === '' && braces[0].length === 1 ? ' '
			: (base ? ' ' + base : '') + '\n' + indentation + '  ';
		return braces[0] + ln + join(output, ',\n' + indentation + '  ') + ' ' + braces[1];
	}

	/* ---- the interface */

	/* util.inspect(value[, options]): options as Node takes them (a
	 * boolean is showHidden; the legacy depth and colors arguments too). */
	function inspect(value, opts) {
		var ctx = {indentationLvl: 0, seen: [], currentDepth: 0, circular: undefined,
			   userOptions: undefined};
		var k;
		for (k in defaults)
			if (hasOwn.call(defaults, k))
				ctx[k] = defaults[k];
		if (arguments.length > 1) {
			if (arguments.length > 2) {
				if (arguments[2] !== undefined)
					ctx.depth = arguments[2];
				if (arguments.length > 3 && arguments[3] !== undefined)
					ctx.colors = arguments[3];
			}
			if (typeof opts === 'boolean') {
				ctx.showHidden = opts;
			} else if (opts) {
				var list = objectKeys(opts);
				for (var i = 0; i < list.length; i++) {
					k = list[i];
					if (hasOwn.call(defaults, k))
						ctx[k] = opts[k];
					else if (ctx.userOptions === undefined)
						ctx.userOptions = opts;
				}
			}
		}
		if (ctx.maxArrayLength === null)
			ctx.maxArrayLength = Infinity;
		if (ctx.maxStringLength === null)
			ctx.maxStringLength = Infinity;
		return formatValue(ctx, value, 0);
	}
	inspect.custom = CUSTOM;

	/* True when v's toString and Symbol.toPrimitive are the built-ins'
	 * (so %s inspects it rather than calling them). */
	function hasBuiltInToString(v) {
		var ownToString = hasOwn, ownToPrimitive = hasOwn;
		if (typeof v.toString !== 'function') {
			if (typeof v[TO_PRIMITIVE] !== 'function')
				return true;
			else if (hasOwn.call(v, TO_PRIMITIVE))
				return false;
			ownToString = returnFalse;
		} else if (hasOwn.call(v, 'toString')) {
			return false;
		} else if (typeof v[TO_PRIMITIVE] !== 'function') {
			ownToPrimitive = returnFalse;
		} else if (hasOwn.call(v, TO_PRIMITIVE)) {
			return false;
		}
		var p = v;
		do {
			p = getPrototypeOf(p);
		} while (!ownToString.call(p, 'toString') && !ownToPrimitive.call(p, TO_PRIMITIVE));
		var d = getOwnPropertyDescriptor(p, 'constructor');
		return d !== undefined && typeof d.value === 'function' && builtIns[d.value.name] === true;
	}

	function returnFalse() { return false; }

	function tryStringify(v) {
		try {
			return jsonStringify(v);
		} catch (e) {
			if (e instanceof TypeError && e.message === circularMessage)
				return '[Circular]';
			throw e;
		}
	}

	function withOptions(options, extra) {
		var o = {}, k;
		if (options)
			for (k in options)
				if (hasOwn.call(options, k))
					o[k] = options[k];
		for (k in extra)
			if (hasOwn.call(extra, k))
				o[k] = extra[k];
		return o;
	}

	/* util.format's placeholders, %s %d %i %f %j %o %O %c and %%, in a
	 * first argument that is a string; the rest appended, separated by
	 * spaces, strings as they are and anything else inspected. */
	function formatArgs(options, args) {
		var first = args[0], a = 0, str = '', sep = '';
		if (typeof first === 'string') {
			if (args.length === 1)
				return first;
			var lastPos = 0, piece;
			for (var i = 0; i < first.length - 1; i++) {
				if (first.charCodeAt(i) !== 37)
					continue;
				var next = first.charCodeAt(++i);
				if (a + 1 !== args.length) {
					var arg;
					switch (next) {
					case 115: /* s */
						arg = args[++a];
						if (typeof arg === 'number')
							piece = formatNumber(arg);
						else if (typeof arg !== 'object' || arg === null ||
							 !hasBuiltInToString(arg))
							piece = StringC(arg);
						else
							piece = inspect(arg, withOptions(options, {compact: 3,
								colors: false, depth: 0}));
						break;
					case 106: /* j */
						piece = tryStringify(args[++a]);
						break;
					case 100: /* d */
						arg = args[++a];
						piece = typeof arg === 'symbol' ? 'NaN' : formatNumber(NumberC(arg));
						break;
					case 79: /* O */
						piece = inspect(args[++a], options);
						break;
					case 111: /* o */
						piece = inspect(args[++a], withOptions(options, {showHidden: true,
							showProxy: true, depth: 4}));
						break;
					case 105: /* i */
						arg = args[++a];
						piece = typeof arg === 'symbol' ? 'NaN' : formatNumber(parseIntF(arg));
						break;
					case 102: /* f */
						arg = args[++a];
						piece = typeof arg === 'symbol' ? 'NaN' : formatNumber(parseFloatF(arg));
						break;
					case 99: /* c */
						a += 1;
						piece = '';
						break;
					case 37: /* % */
						str += first.slice(lastPos, i);
						lastPos = i + 1;
						continue;
					default:
						continue;
					}
					if (lastPos !== i - 1)
						str += first.slice(lastPos, i - 1);
					str += piece;
					lastPos = i + 1;
				} else if (next === 37) {
					str += first.slice(lastPos, i);
					lastPos = i + 1;
				}
			}
			if (lastPos !== 0) {
				a++;
				sep = ' ';
				if (lastPos < first.length)
					str += first.slice(lastPos);
			}
		}
		while (a < args.length) {
			var v = args[a];
			str += sep + (typeof v !== 'string' ? inspect(v, options) : v);
			sep = ' ';
			a++;
		}
		return str;
	}

	function format() {
		var args = [];
		for (var i = 0; i < arguments.length; i++)
			args.push(arguments[i]);
		return formatArgs(undefined, args);
	}

	function formatWithOptions(options) {
		if (options === null || typeof options !== 'object') {
			var e = new TypeError('The "inspectOptions" argument must be of type object.' +
					      (options === null ? ' Received null' : ' Received type ' +
					       typeof options + ' (' + StringC(options) + ')'));
			e.code = 'ERR_INVALID_ARG_TYPE';
			throw e;
		}
		var args = [];
		for (var i = 1; i < arguments.length; i++)
			args.push(arguments[i]);
		return formatArgs(options, args);
	}

	return {inspect: inspect, format: format, formatWithOptions: formatWithOptions};
})
