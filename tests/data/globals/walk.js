/* Everything a script reaches from the global object and from the objects
 * it can make: every own property (names and symbols, values and
 * accessors) and every prototype, breadth first. ES5, so that it runs as
 * it is; a lowered variant adds the roots only modern code can make. */
var DENY_KEYS = ['Duktape', 'CBOR', 'Buffer', '$$rt', '$$gen', '$$groups', 'Thread', 'errCreate',
		 'errThrow', 'plainOf', 'allocPlain', 'fromBufferRaw', 'act', 'fin', 'gc',
		 'compact', 'enc', 'dec'];
var DENY_CLASSES = ['[object Thread]', '[object Pointer]', '[object Duktape]',
		    '[object Buffer]'];
var toStr = Object.prototype.toString, names = Object.getOwnPropertyNames;
var syms = Object.getOwnPropertySymbols, desc = Object.getOwnPropertyDescriptor;
var seen = [], bad = [], queue = [];
function add(v, path) {
	if (v !== null && (typeof v === 'object' || typeof v === 'function'))
		queue.push([v, path]);
}
var global = this;
function walk(roots) {
	for (var r in roots)
		add(roots[r], r);
	while (queue.length) {
		var e = queue.shift(), o = e[0], path = e[1];
		if (seen.indexOf(o) >= 0)
			continue;
		seen.push(o);
		var cls = toStr.call(o);
		if (DENY_CLASSES.indexOf(cls) >= 0)
			bad.push(path + ' is ' + cls);
		var keys = names(o).concat(syms(o));
		for (var i = 0; i < keys.length; i++) {
			var k = keys[i], label = typeof k === 'symbol' ? '[' + String(k) + ']' : '.' + k;
			var d = desc(o, k);
			/* (The internals are objects and functions: a number under
			 * such a name, inspect's option compact, is none.) */
			if (typeof k === 'string' && DENY_KEYS.indexOf(k) >= 0 &&
			    !(d && 'value' in d && Object(d.value) !== d.value))
				bad.push(path + label);
			if (!d)
				continue;
			add(d.value, path + label);
			add(d.get, path + label + '<get>');
			add(d.set, path + label + '<set>');
		}
		add(Object.getPrototypeOf(o), path + '.__proto__');
	}
	var chain = [];
	for (var p = global; p; p = Object.getPrototypeOf(p))
		chain.push(names(p).concat(syms(p).map(String)).sort());
	return {chain: chain, bad: bad, reached: seen.length};
}
var roots = {
	global: global,
	args: (function () { return arguments; })(1),
	bound: function () {}.bind(null),
	error: new Error('x'),
	regexp: /a/g,
	promise: Promise.resolve(1),
	map: new Map([[{}, 1]]),
	set: new Set([1]),
	weakmap: (function () { var k = {}, w = new WeakMap(); w.set(k, 1); return k; })(),
	date: new Date(0),
	typed: new Uint8Array(2),
	view: new DataView(new ArrayBuffer(2)),
	proxy: new Proxy({}, {}),
	encoder: new TextEncoder(),
	url: (function () { var u = new URL('http://u:p@a/b?c=d#e'); u.searchParams.sort(); return u; })(),
	params: new URLSearchParams('a=b'),
	paramsIterator: new URLSearchParams('a=b').entries(),
	/* What a custom inspect function is handed: the options and
	 * util.inspect itself (thrown out, so that nothing is printed). */
	inspect: (function () {
		var got = [], o = {};
		o[Symbol['for']('nodejs.util.inspect.custom')] = function (depth, options, inspect) {
			got = [options, inspect];
			throw got;
		};
		try {
			console.log(o);
		} catch (e) {}
		return got;
	})(),
	controller: (function () { var c = new AbortController(); c.abort(); return c; })(),
	signal: AbortSignal.any([new AbortController().signal]),
	target: (function () { var t = new EventTarget(); t.addEventListener('e', function () {}); return t; })(),
	event: new Event('e'),
	weakref: new WeakRef({}),
	registry: new FinalizationRegistry(function () {}),
	domexception: new DOMException('x', 'AbortError'),
	clone: structuredClone({m: new Map([[1, new Uint8Array(1)]]), e: new RangeError('r')}),
	timeout: (function () { var t = setTimeout(function () {}, 1); clearTimeout(t); return t; })(),
	immediate: (function () { var i = setImmediate(function () {}); clearImmediate(i); return i; })()
};
