/*
 * timers.js - setTimeout, setInterval, setImmediate, their clear functions
 * and the event loop that runs them, as Node 20 runs them.
 *
 * Runs once, in the forkserver's prepared engine. ES5 only. Evaluates to a
 * function of (global, natives, internals, hidden, limits) that defines the
 * six globals and returns the loop the engine and test mode drive:
 *
 *   run(value)   after a script's body: marks value handled when it is a
 *                promise (the caller reads it, as Node's runner would), then
 *                runs what is left (microtasks, warnings, timers and
 *                immediates) until nothing is; throws what a callback threw.
 *   until(p)     runs the same loop only until the promise p has settled
 *                (test mode awaits each test so); false when nothing was
 *                left to run and p is still pending.
 *   warning(name, message)
 *                queues a process warning ("(node:1) NAME: MESSAGE", the
 *                --trace-warnings hint after the first), written through
 *                console.error once the running job is done, before the
 *                promise jobs it queued, as process.emitWarning does.
 *
 * natives are the engine's C primitives, closed over here and reachable from
 * nothing a script can name: now() (the monotonic clock in milliseconds),
 * sleep(ms) (clock_nanosleep until that time) and wanted() (tells the engine that run() has work, so that scripts
 * using none of this never call into it). internals are the polyfills'
 * (drain, rejections, handle).
 *
 * The loop is libuv's as Node drives it (lib/internal/timers.js): timers
 * live in one list per duration, each list ordered by insertion; the lists
 * in a priority queue by (expiry, list id). A loop turn runs the timers
 * due, waits (sleeps) for the next one unless a referenced immediate is
 * pending, runs the immediates queued before the phase began, and goes on
 * while a referenced timer or immediate is left. After the body and after
 * every callback, the microtask queue is run empty and unhandled rejections
 * reported (Node's processTicksAndRejections), warnings written to stderr
 * through console.error, as Node writes them.
 */
(function (global, natives, internals, hidden, limits) {
	'use strict';
	var now = natives.now, sleep = natives.sleep, wanted = natives.wanted;
	var drain = internals.drain, takeRejections = internals.rejections;
	var handle = internals.handle, inspectPromise = internals.inspect;
	var defineProperty = Object.defineProperty;
	var call = Function.prototype.call.bind(Function.prototype.call);
	var apply = Function.prototype.call.bind(Function.prototype.apply);
	var slice = Function.prototype.call.bind(Array.prototype.slice);
	var hasOwn = Function.prototype.call.bind(Object.prototype.hasOwnProperty);
	var objToString = Function.prototype.call.bind(Object.prototype.toString);
	var fnToString = Function.prototype.call.bind(Function.prototype.toString);
	var getProto = Object.getPrototypeOf, getDesc = Object.getOwnPropertyDescriptor;
	var StringC = String, TypeErrorC = TypeError, RangeErrorC = RangeError;
	var strSlice = Function.prototype.call.bind(String.prototype.slice);
	var create = Object.create, floor = Math.floor, ceil = Math.ceil, max = Math.max;
	var TO_STRING_TAG = Symbol.toStringTag, TO_PRIMITIVE = Symbol.toPrimitive;
	var ObjectToString = Object.prototype.toString;
	var ErrorToString = Error.prototype.toString;
	/* console.error as it was before any script: written to when a script's
	 * own console.error is no function. */
	var rawError = global.console.error;

	/* The loop's time is whole milliseconds, as libuv's: a timer's start
	 * is rounded up and the time a phase reads down, so that a timer never
	 * fires before its delay has passed (Node's, which rounds both down,
	 * can fire up to a millisecond early). */
	function startTime() { return ceil(now()); }
	function phaseTime() { return floor(now()); }

	var TIMEOUT_MAX = 2147483647; /* 2 ** 31 - 1, Node's TIMEOUT_MAX */
	var MAX_PENDING = limits.pending;
	var STATE = hidden.fresh();

	/* ---- warnings, as process.emitWarning prints them */

	/* Node's nextTick queue: only warnings go there. Internal lists and
	 * maps here are objects without a prototype, so that no setter or
	 * getter a script puts on Array.prototype or Object.prototype sees
	 * them. */
	var warnings = create(null), warnHead = 0, warnTail = 0;
	var hintShown = false; /* "(Use `node --trace-warnings ...`" once */

	function emitWarning(name, message) {
		var text = '(node:1) ' + name + ': ' + message;
		if (!hintShown) {
			text += '\n(Use `node --trace-warnings ...` to show where the warning was created)';
			hintShown = true;
		}
		warnings[warnTail++] = text;
		wanted();
	}

	function writeWarnings() {
		while (warnHead < warnTail) {
			var text = warnings[warnHead];
			delete warnings[warnHead++];
			var c = global.console, error = c !== null && c !== undefined ? c.error : undefined;
			if (typeof error === 'function')
				call(error, c, text);
			else
				rawError(text);
		}
	}

	/* ---- unhandled rejections, reported as Node 20 does with
	 * --unhandled-rejections=warn */

	/* V8's Object::NoSideEffectsToString, for what Node prints of a
	 * rejection reason that is not an error. */
	function dataProperty(o, key) {
		for (var p = o; p !== null; p = getProto(p)) {
			var d = getDesc(p, key);
			if (d)
				return hasOwn(d, 'value') ? d.value : undefined;
		}
		return undefined;
	}
	function noSideEffectsToString(v) {
		if (typeof v === 'function')
			return fnToString(v);
		if (v === null || typeof v !== 'object')
			return StringC(v);
		var toString = dataProperty(v, 'toString');
		if (toString === ErrorToString) {
			var name = dataProperty(v, 'name'), msg = dataProperty(v, 'message');
			name = name === undefined ? 'Error' : StringC(name);
			msg = msg === undefined ? '' : StringC(msg);
			return name && msg ? name + ': ' + msg : name || msg;
		}
		if (toString === ObjectToString) {
			var ctor = dataProperty(v, 'constructor');
			if (typeof ctor === 'function') {
				var cname = dataProperty(ctor, 'name');
				if (typeof cname === 'string' && cname !== '')
					return '#<' + cname + '>';
			}
		}
		var tag = dataProperty(v, TO_STRING_TAG);
		return typeof tag === 'string' ? '[object ' + tag + ']' : objToString(v);
	}

	/* Error-like as Node means it (an own stack in V8); the engine keeps
	 * stack on Error.prototype, so an Error is too. */
	function isErrorLike(v) {
		return v !== null && typeof v === 'object' &&
		       (hasOwn(v, 'stack') || objToString(v) === '[object Error]');
	}

	var UNHANDLED = 'Unhandled promise rejection. This error originated either by ' +
		'throwing inside of an async function without a catch block, ' +
		'or by rejecting a promise which was not handled with .catch(). ' +
		'To terminate the node process on unhandled promise ' +
		'rejection, use the CLI flag `--unhandled-rejections=strict` (see ' +
		'https://nodejs.org/api/cli.html#cli_unhandled_rejections_mode). ';

	/* Node's processPromiseRejections: true when it wrote a warning. */
	function processRejections() {
		var r = takeRejections();
		if (r === null)
			return false;
		var i;
		for (i = 0; i < r.handledCount; i++)
			emitWarning('PromiseRejectionHandledWarning',
				    'Promise rejection was handled asynchronously (rejection id: ' +
					    r.handled[i] + ')');
		for (i = 0; i < r.unhandledCount; i++) {
			var reason = r.unhandled[i].reason, text;
			try {
				var stack = isErrorLike(reason) ? reason.stack : undefined;
				text = typeof stack === 'string' ? stack : noSideEffectsToString(reason);
			} catch (e) {
				try {
					text = noSideEffectsToString(reason);
				} catch (e2) {
					text = '';
				}
			}
			emitWarning('UnhandledPromiseRejectionWarning', text);
			emitWarning('UnhandledPromiseRejectionWarning',
				    UNHANDLED + '(rejection id: ' + r.unhandled[i].id + ')');
		}
		return r.handledCount + r.unhandledCount > 0;
	}

	/* Node's processTicksAndRejections, after the body and each callback. */
	function ticks() {
		do {
			writeWarnings();
			drain();
		} while (warnHead < warnTail || processRejections());
	}

	/* ---- arguments, checked as Node checks them */

	function describe(v) {
		if (v === null || v === undefined)
			return ' Received ' + v;
		if (typeof v === 'function')
			return ' Received function ' + (v.name || '<anonymous>');
		if (typeof v === 'object') {
			var ctor = dataProperty(v, 'constructor');
			if (typeof ctor === 'function' && ctor.name)
				return ' Received an instance of ' + ctor.name;
			return ' Received ' + (getProto(v) === null ? '[Object: null prototype] {}'
								     : '{}');
		}
		var shown = typeof v === 'string' ? "'" + v + "'" : StringC(v);
		if (shown.length > 28)
			shown = strSlice(shown, 0, 25) + '...';
		return ' Received type ' + typeof v + ' (' + shown + ')';
	}

	function checkCallback(fn) {
		if (typeof fn !== 'function') {
			var e = new TypeErrorC('The "callback" argument must be of type function.' +
					       describe(fn));
			defineProperty(e, 'code', {value: 'ERR_INVALID_ARG_TYPE', writable: true,
						   enumerable: false, configurable: true});
			throw e;
		}
	}

	var pending = 0; /* timers in lists and immediates queued */

	function reserve() {
		if (pending >= MAX_PENDING)
			throw new RangeErrorC('too many pending timers and immediates: at most ' +
					      MAX_PENDING);
		pending++;
	}

	/* Node's coercion of a delay: to a number, then 1 unless in
	 * [1, TIMEOUT_MAX] (with a warning above). */
	function delay(after) {
		after *= 1;
		if (!(after >= 1 && after <= TIMEOUT_MAX)) {
			if (after > TIMEOUT_MAX)
				emitWarning('TimeoutOverflowWarning', after + ' does not fit into a ' +
					    '32-bit signed integer.\nTimeout duration was set to 1.');
			after = 1;
		}
		return after;
	}

	/* ---- timer lists and their priority queue */

	var lists = create(null); /* truncated duration -> list */
	var queue = create(null); /* binary heap of lists, 1 .. queued */
	var queued = 0;
	var nextListId = 0;
	var refCount = 0;	/* referenced timers not yet destroyed */
	var nextTimerId = 1;
	var byId = create(null); /* ids a timer was converted to, as clear* takes them */

	function before(a, b) {
		return a.expiry < b.expiry || (a.expiry === b.expiry && a.id < b.id);
	}
	function heapSet(i, list) {
		queue[i] = list;
		list.pos = i;
	}
	function heapUp(i) {
		var list = queue[i];
		while (i > 1 && before(list, queue[i >> 1])) {
			heapSet(i, queue[i >> 1]);
			i >>= 1;
		}
		heapSet(i, list);
	}
	function heapDown(i) {
		var list = queue[i], n = queued;
		for (;;) {
			var c = i * 2;
			if (c > n)
				break;
			if (c + 1 <= n && before(queue[c + 1], queue[c]))
				c++;
			if (!before(queue[c], list))
				break;
			heapSet(i, queue[c]);
			i = c;
		}
		heapSet(i, list);
	}
	function heapRemove(list) {
		var i = list.pos, last = queue[queued];
		delete queue[queued--];
		list.pos = 0;
		if (last === list)
			return;
		heapSet(i, last);
		heapUp(i);
		heapDown(last.pos);
	}

	/* Lists are circular with a sentinel: the list itself. */
	function unlink(s) {
		if (s.next) {
			s.next.prev = s.prev;
			s.prev.next = s.next;
			s.next = s.prev = null;
			pending--;
		}
	}

	/* Node's insert(): s at the end of its duration's list. */
	function insert(s, msecs, start) {
		msecs = msecs < 0 ? ceil(msecs) : floor(msecs);
		if (!s.next)
			reserve();
		else
			unlink(s), pending++;
		s.start = start;
		var list = lists[msecs];
		if (list === undefined) {
			list = lists[msecs] = {expiry: start + msecs, msecs: msecs, id: nextListId++,
					       pos: 0, next: null, prev: null};
			list.next = list.prev = list;
			queue[++queued] = list;
			heapUp(queued);
		}
		s.prev = list.prev;
		s.next = list;
		list.prev.next = s;
		list.prev = s;
		wanted();
	}

	/* Node's unenroll(): out of its list for good. */
	function unenroll(s) {
		if (s.destroyed)
			return;
		s.destroyed = true;
		if (s.primitive)
			delete byId[s.id];
		unlink(s);
		if (s.refed) {
			var msecs = s.after < 0 ? ceil(s.after) : floor(s.after);
			var list = lists[msecs];
			if (list !== undefined && list.next === list) {
				heapRemove(list);
				delete lists[msecs];
			}
			refCount--;
		}
		s.after = -1;
	}

	var constructing = false;

	/* What setTimeout and setInterval give; not to be made by scripts. */
	function Timeout() {
		if (!constructing)
			throw new TypeErrorC('Illegal constructor');
	}
	function Immediate() {
		if (!constructing)
			throw new TypeErrorC('Illegal constructor');
	}

	function state(o, kind) {
		var s = o !== null && typeof o === 'object' && hasOwn(o, STATE) ? o[STATE] : undefined;
		if (s === undefined || s.kind !== kind)
			throw new TypeErrorC('not a ' + kind);
		return s;
	}

	function makeTimer(callback, after, args, repeat) {
		checkCallback(callback);
		after = delay(after);
		constructing = true;
		var t = new Timeout();
		constructing = false;
		var s = {kind: 'Timeout', self: t, callback: callback, args: args, after: after,
			 repeat: repeat ? after : null, start: 0, next: null, prev: null,
			 refed: true, destroyed: false, primitive: false, id: nextTimerId++};
		defineProperty(t, STATE, {value: s});
		insert(s, after, startTime());
		refCount++;
		return t;
	}

	function args(list, from) {
		return list.length > from ? slice(list, from) : undefined;
	}

	function setTimeout(callback, after) {
		return makeTimer(callback, after, args(arguments, 2), false);
	}
	function setInterval(callback, repeat) {
		return makeTimer(callback, repeat, args(arguments, 2), true);
	}

	/* clearTimeout and clearInterval are one: either clears either. */
	function clearTimer(timer) {
		var s = timer !== null && typeof timer === 'object' && hasOwn(timer, STATE)
				? timer[STATE] : undefined;
		if (s !== undefined && s.kind === 'Timeout') {
			if (s.callback) {
				s.callback = null;
				unenroll(s);
			}
			return;
		}
		if (typeof timer === 'number' || typeof timer === 'string') {
			var known = hasOwn(byId, timer) ? byId[timer] : undefined;
			if (known !== undefined) {
				known.after = -1;
				unenroll(known);
			}
		}
	}

	var TP = Timeout.prototype;
	function method(proto, name, fn) {
		defineProperty(proto, name, {value: fn, writable: true, configurable: true,
					     enumerable: false});
	}
	method(TP, 'refresh', function refresh() {
		var s = state(this, 'Timeout');
		if (s.after >= 0) {
			insert(s, s.after, startTime());
			if (s.destroyed) {
				s.destroyed = false;
				if (s.refed)
					refCount++;
			}
		}
		return this;
	});
	method(TP, 'unref', function unref() {
		var s = state(this, 'Timeout');
		if (s.refed) {
			s.refed = false;
			if (!s.destroyed)
				refCount--;
		}
		return this;
	});
	method(TP, 'ref', function ref() {
		var s = state(this, 'Timeout');
		if (!s.refed) {
			s.refed = true;
			if (!s.destroyed)
				refCount++;
		}
		return this;
	});
	method(TP, 'hasRef', function hasRef() { return state(this, 'Timeout').refed; });
	method(TP, 'close', function close() {
		clearTimer(this);
		return this;
	});
	defineProperty(TP, TO_PRIMITIVE, {
		value: function () {
			var s = state(this, 'Timeout');
			if (!s.primitive) {
				s.primitive = true;
				byId[s.id] = s;
			}
			return s.id;
		},
		writable: true, configurable: true, enumerable: false});

	/* Node's listOnTimeout: the due timers of one list, in order. */
	function runList(list, time) {
		var first = true;
		for (var s = list.next; s !== list; s = list.next) {
			if (time - s.start < list.msecs) {
				list.expiry = max(s.start + list.msecs, time + 1);
				list.id = nextListId++;
				if (list.pos)
					heapDown(list.pos);
				return;
			}
			if (!first)
				ticks();
			first = false;
			unlink(s);
			if (!s.callback) {
				if (!s.destroyed) {
					s.destroyed = true;
					if (s.refed)
						refCount--;
				}
				continue;
			}
			var start = s.repeat !== null ? startTime() : 0;
			try {
				if (s.args === undefined)
					call(s.callback, s.self);
				else
					apply(s.callback, s.self, s.args);
			} finally {
				if (s.repeat !== null && s.after !== -1) {
					s.after = s.repeat;
					insert(s, s.after, start);
				} else if (!s.next && !s.destroyed) {
					s.destroyed = true;
					if (s.refed)
						refCount--;
				}
			}
		}
		if (lists[list.msecs] === list) {
			delete lists[list.msecs];
			heapRemove(list);
		}
	}

	/* Node's processTimers: every list whose expiry has come. */
	function runTimers() {
		var time = phaseTime(), first = true;
		while (queued > 0) {
			var list = queue[1];
			if (list.expiry > time)
				return;
			if (!first)
				ticks();
			first = false;
			runList(list, time);
		}
	}

	/* ---- immediates: one queue, run a turn at a time */

	var immHead = null, immTail = null, immCount = 0, immRefCount = 0;

	function immRemove(s) {
		if (s.prev)
			s.prev.next = s.next;
		else if (immHead === s)
			immHead = s.next;
		if (s.next)
			s.next.prev = s.prev;
		else if (immTail === s)
			immTail = s.prev;
		s.next = s.prev = null;
	}

	function setImmediate(callback) {
		checkCallback(callback);
		reserve();
		constructing = true;
		var im = new Immediate();
		constructing = false;
		var s = {kind: 'Immediate', self: im, callback: callback, args: args(arguments, 1),
			 next: null, prev: immTail, refed: true, destroyed: false};
		defineProperty(im, STATE, {value: s});
		if (immTail)
			immTail.next = s;
		else
			immHead = s;
		immTail = s;
		immCount++;
		immRefCount++;
		wanted();
		return im;
	}

	function clearImmediate(im) {
		var s = im !== null && typeof im === 'object' && hasOwn(im, STATE) ? im[STATE]
										   : undefined;
		if (s === undefined || s.kind !== 'Immediate' || s.destroyed)
			return;
		immCount--;
		pending--;
		s.destroyed = true;
		if (s.refed)
			immRefCount--;
		s.refed = null;
		s.callback = null;
		immRemove(s);
	}

	var IP = Immediate.prototype;
	method(IP, 'ref', function ref() {
		var s = state(this, 'Immediate');
		if (s.refed === false) {
			s.refed = true;
			immRefCount++;
		}
		return this;
	});
	method(IP, 'unref', function unref() {
		var s = state(this, 'Immediate');
		if (s.refed === true) {
			s.refed = false;
			immRefCount--;
		}
		return this;
	});
	method(IP, 'hasRef', function hasRef() { return !!state(this, 'Immediate').refed; });

	/* Node's processImmediate: those queued when the phase began, in
	 * order; those they queue wait for the next turn. Each stays linked
	 * until the next has been chosen, so that clearImmediate of a later one
	 * (from a callback or its microtasks) unlinks it from this batch. */
	function runImmediates() {
		var s = immHead;
		immHead = immTail = null;
		while (s !== null) {
			s.destroyed = true;
			immCount--;
			pending--;
			if (s.refed)
				immRefCount--;
			s.refed = null;
			var fn = s.callback;
			s.callback = null;
			if (s.args === undefined)
				call(fn, s.self);
			else
				apply(fn, s.self, s.args);
			ticks();
			var next = s.next;
			s.next = s.prev = null;
			if (next)
				next.prev = null;
			s = next;
		}
	}

	/* ---- the loop */

	function alive() {
		return refCount > 0 || immRefCount > 0;
	}

	/* One poll phase: sleeps until the first list's expiry, unless a
	 * referenced immediate is waiting. */
	function poll() {
		if (immRefCount > 0 || queued === 0)
			return;
		var expiry = queue[1].expiry;
		if (expiry > now())
			sleep(expiry);
	}

	/* libuv's uv_run(UV_RUN_DEFAULT) with Node's phases; stop() is asked
	 * after every phase and ends it early when true. */
	function loop(stop) {
		ticks();
		if (stop() || !alive())
			return;
		runTimers();
		ticks();
		while (!stop() && alive()) {
			poll();
			if (immCount > 0) {
				runImmediates();
				ticks();
				if (stop())
					return;
			}
			runTimers();
			ticks();
		}
	}

	function never() { return false; }

	function run(value) {
		handle(value);
		loop(never);
	}

	function until(p) {
		loop(function () {
			var st = inspectPromise(p);
			return st === undefined || st.state !== 'pending';
		});
		var st = inspectPromise(p);
		return st !== undefined && st.state !== 'pending';
	}

	function global_(name, fn) {
		defineProperty(global, name, {value: fn, writable: true, enumerable: true,
					      configurable: true});
	}
	global_('setTimeout', setTimeout);
	global_('setInterval', setInterval);
	global_('setImmediate', setImmediate);
	global_('clearTimeout', function clearTimeout(timer) { clearTimer(timer); });
	global_('clearInterval', function clearInterval(timer) { clearTimer(timer); });
	global_('clearImmediate', clearImmediate);

	/* warning(name, message): a process warning, for the console's. */
	return {run: run, until: until, warning: emitWarning};
})
