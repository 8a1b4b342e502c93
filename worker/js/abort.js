/*
 * abort.js - EventTarget, Event, AbortController and AbortSignal, as Node 20
 * has them (its lib/internal/event_target.js and abort_controller.js follow
 * the DOM standard for a target with no tree: no capture or bubble phase).
 *
 * Runs once, in the forkserver's prepared engine, after web.js (whose
 * DOMException the abort reasons are). ES5 only. Evaluates to a function
 * of (global, hidden): an object's state lives under hidden keys (see
 * polyfills.js) no script can name or list. AbortSignal.timeout reads the
 * global setTimeout when it is called, so it uses the timers the execution
 * has.
 */
(function (global, hidden) {
	'use strict';
	var defineProperty = Object.defineProperty;
	var hasOwn = Object.prototype.hasOwnProperty;
	var DOMException = global.DOMException;
	var queueMicrotask = global.queueMicrotask;
	var INSPECT = Symbol['for']('nodejs.util.inspect.custom');
	var LISTENERS = hidden.fresh(), EVENT = hidden.fresh(), SIGNAL = hidden.fresh();
	var CONTROLLER = hidden.fresh(), HANDLERS = hidden.fresh();

	function define(obj, name, value) {
		defineProperty(obj, name, {value: value, writable: true, configurable: true,
					   enumerable: false});
	}

	/* Getters on the prototype, enumerable as WebIDL attributes are. */
	function getter(proto, name, get) {
		defineProperty(proto, name, {get: get, enumerable: true, configurable: true});
	}

	function tag(proto, name) {
		defineProperty(proto, Symbol.toStringTag, {value: name, configurable: true});
	}

	/* A TypeError with Node's code, as its internal/errors makes them; its
	 * stack begins at the script's call, without this file's frames. */
	function nodeError(Ctor, code, message) {
		var e = new Ctor(message);
		defineProperty(e, 'code', {value: code, writable: true, enumerable: false,
					   configurable: true});
		var stack = e.stack;
		if (typeof stack === 'string')
			define(e, 'stack', stack.replace(/\n    at [^\n]*\(abort\.js:\d+\)/g, ''));
		return e;
	}

	/* How Node's ERR_INVALID_ARG_TYPE describes the value it received. */
	function received(v) {
		if (v == null)
			return ' Received ' + v;
		if (typeof v === 'function')
			return ' Received function ' + (v.name || '<anonymous>');
		if (typeof v === 'object') {
			var c = v.constructor;
			return c && c.name ? ' Received an instance of ' + c.name : ' Received ' + String(v);
		}
		var shown = typeof v === 'string' ? "'" + v + "'" : String(v);
		return ' Received type ' + typeof v + ' (' + shown + ')';
	}

	function illegal() { return nodeError(TypeError, 'ERR_ILLEGAL_CONSTRUCTOR', 'Illegal constructor'); }

	/* Node's util.inspect custom hook: "Name { fields }". */
	function inspectAs(name, fields) {
		return function (depth, options, inspect) {
			var f = fields(this);
			return typeof inspect === 'function' ? name + ' ' + inspect(f, options) : name;
		};
	}

	/* ---- Event */

	function eventState(e, method) {
		if (Object(e) !== e || !hasOwn.call(e, EVENT))
			throw nodeError(TypeError, 'ERR_INVALID_THIS', 'Value of "this" must be of type Event');
		return e[EVENT];
	}

	function Event(type, options) {
		if (!(this instanceof Event))
			throw new TypeError("Class constructor Event cannot be invoked without 'new'");
		if (arguments.length === 0)
			throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "type" argument must be specified');
		if (options != null && typeof options !== 'object' && typeof options !== 'function')
			throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
					'The "options" argument must be of type object.' + received(options));
		var o = options == null ? {} : options;
		var perf = global.performance;
		defineProperty(this, EVENT, {value: {
			type: String(type), bubbles: !!o.bubbles, cancelable: !!o.cancelable,
			composed: !!o.composed, canceled: false, stop: false, stopNow: false,
			target: null, current: null, phase: 0, trusted: false, dispatching: false,
			time: perf && typeof perf.now === 'function' ? perf.now() : 0
		}});
	}
	var EP = Event.prototype;
	var PHASES = ['NONE', 'CAPTURING_PHASE', 'AT_TARGET', 'BUBBLING_PHASE'];
	for (var i = 0; i < PHASES.length; i++)
		defineProperty(Event, PHASES[i], {value: i, enumerable: true});
	define(EP, 'initEvent', function initEvent(type, bubbles, cancelable) {
		var s = eventState(this);
		if (arguments.length === 0)
			throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "type" argument must be specified');
		if (s.dispatching)
			return;
		s.type = String(type);
		s.bubbles = !!bubbles;
		s.cancelable = !!cancelable;
	});
	define(EP, 'stopImmediatePropagation', function stopImmediatePropagation() {
		var s = eventState(this);
		s.stop = s.stopNow = true;
	});
	define(EP, 'preventDefault', function preventDefault() {
		var s = eventState(this);
		if (s.cancelable)
			s.canceled = true;
	});
	getter(EP, 'target', function () { return eventState(this).target; });
	getter(EP, 'currentTarget', function () { return eventState(this).current; });
	getter(EP, 'srcElement', function () { return eventState(this).target; });
	getter(EP, 'type', function () { return eventState(this).type; });
	getter(EP, 'cancelable', function () { return eventState(this).cancelable; });
	getter(EP, 'defaultPrevented', function () {
		var s = eventState(this);
		return s.cancelable && s.canceled;
	});
	getter(EP, 'timeStamp', function () { return eventState(this).time; });
	define(EP, 'composedPath', function composedPath() {
		var s = eventState(this);
		return s.dispatching && s.current ? [s.current] : [];
	});
	/* Read-only in Node 20. */
	getter(EP, 'returnValue', function () {
		var s = eventState(this);
		return !(s.cancelable && s.canceled);
	});
	getter(EP, 'bubbles', function () { return eventState(this).bubbles; });
	getter(EP, 'composed', function () { return eventState(this).composed; });
	getter(EP, 'eventPhase', function () { return eventState(this).phase; });
	defineProperty(EP, 'cancelBubble', {enumerable: true, configurable: true,
		get: function () { return eventState(this).stop; },
		set: function (v) {
			if (v)
				eventState(this).stop = true;
		}});
	define(EP, 'stopPropagation', function stopPropagation() { eventState(this).stop = true; });
	/* isTrusted is an own, unforgeable accessor in Node, true only for the
	 * events the platform dispatches (a signal's abort). */
	var isTrusted = function () { return !!(this && hasOwn.call(this, EVENT) && this[EVENT].trusted); };
	getter(EP, 'isTrusted', isTrusted);
	tag(EP, 'Event');
	define(EP, INSPECT, inspectAs('Event', function (e) {
		var s = eventState(e);
		return {type: s.type, defaultPrevented: s.cancelable && s.canceled,
			cancelable: s.cancelable, timeStamp: s.time};
	}));

	/* ---- EventTarget */

	function targetState(t) {
		if (Object(t) !== t || !hasOwn.call(t, LISTENERS))
			throw nodeError(TypeError, 'ERR_INVALID_THIS', 'Value of "this" must be of type EventTarget');
		return t[LISTENERS];
	}

	function EventTarget() {
		if (!(this instanceof EventTarget))
			throw new TypeError("Class constructor EventTarget cannot be invoked without 'new'");
		defineProperty(this, LISTENERS, {value: Object.create(null)});
	}
	var TP = EventTarget.prototype;

	/* {capture, once, passive, signal} of addEventListener's third
	 * argument; a boolean is capture alone. */
	function listenerOptions(options) {
		if (options === undefined || options === null || typeof options !== 'object')
			return {capture: !!options, once: false, passive: false, signal: undefined};
		return {capture: !!options.capture, once: !!options.once, passive: !!options.passive,
			signal: options.signal};
	}

	/* A type's listeners are a list from a head entry, in the order they
	 * were added. An entry taken out keeps its next, so that a dispatch
	 * standing on it goes on. */
	function find(head, listener, capture) {
		for (var e = head.next; e; e = e.next)
			if (e.listener === listener && e.capture === capture)
				return e;
		return null;
	}

	function removeEntry(entry) {
		if (entry.removed)
			return;
		entry.removed = true;
		entry.prev.next = entry.next;
		if (entry.next)
			entry.next.prev = entry.prev;
		else
			entry.head.tail = entry.prev;
	}

	define(TP, 'addEventListener', function addEventListener(type, listener, options) {
		var all = targetState(this);
		if (arguments.length < 2)
			throw nodeError(TypeError, 'ERR_MISSING_ARGS',
					'The "type" and "listener" arguments must be specified');
		var o = listenerOptions(options);
		if (o.signal !== undefined && !isSignal(o.signal))
			throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
					'The "options.signal" property must be an instance of AbortSignal.' +
					received(o.signal));
		/* null is no listener (Node warns; nothing is added). */
		if (listener == null)
			return;
		if (o.signal && o.signal.aborted)
			return;
		type = String(type);
		var head = hasOwn.call(all, type) ? all[type] : null;
		if (!head) {
			head = all[type] = {next: null, tail: null};
			head.tail = head;
		}
		if (find(head, listener, o.capture))
			return;
		var entry = {listener: listener, capture: o.capture, once: o.once, removed: false,
			     head: head, prev: head.tail, next: null};
		head.tail.next = entry;
		head.tail = entry;
		if (o.signal)
			addAlgorithm(o.signal, function () { removeEntry(entry); });
	});
	define(TP, 'removeEventListener', function removeEventListener(type, listener, options) {
		var all = targetState(this);
		type = String(type);
		var e = hasOwn.call(all, type) ? find(all[type], listener, listenerOptions(options).capture)
					       : null;
		if (e)
			removeEntry(e);
	});

	/* Calls the target's listeners for event, in the order they were
	 * added; those removed meanwhile are not called. As in Node, each
	 * listener's successor is read before it is called: one added by the
	 * last listener is not called, one added by another is. A listener
	 * that throws does not stop the others: its error is thrown again from
	 * a microtask, where Node throws it from process.nextTick as an
	 * uncaught exception. */
	function dispatch(target, event) {
		var s = event[EVENT], all = targetState(target);
		s.dispatching = true;
		s.target = s.current = target;
		s.phase = 2;
		var head = hasOwn.call(all, s.type) ? all[s.type] : null, next;
		for (var entry = head && head.next; entry && !s.stopNow; entry = next) {
			next = entry.next;
			if (entry.removed)
				continue;
			if (entry.once)
				removeEntry(entry);
			var l = entry.listener;
			try {
				if (typeof l === 'function')
					l.call(target, event);
				else if (l && typeof l.handleEvent === 'function')
					l.handleEvent(event);
			} catch (err) {
				queueMicrotask(function () { throw err; });
			}
		}
		s.current = null;
		s.phase = 0;
		s.dispatching = false;
		return !(s.cancelable && s.canceled);
	}

	define(TP, 'dispatchEvent', function dispatchEvent(event) {
		targetState(this);
		if (!(event instanceof Event) || !hasOwn.call(event, EVENT))
			throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
					'The "event" argument must be an instance of Event.' + received(event));
		if (event[EVENT].dispatching)
			throw new DOMException('The event is already being dispatched', 'InvalidStateError');
		return dispatch(this, event);
	});
	tag(TP, 'EventTarget');
	define(TP, INSPECT, function (depth, options, inspect) {
		var name = this && this.constructor && this.constructor.name || 'EventTarget';
		return name + ' {}';
	});

	/* An on<type> handler: an event listener of its own, added the first
	 * time the handler is set to a function and kept in that place. */
	function handlerProperty(proto, type) {
		defineProperty(proto, 'on' + type, {enumerable: true, configurable: true,
			get: function () {
				var h = this && this[HANDLERS];
				return h && h[type] ? h[type].fn : null;
			},
			set: function (fn) {
				targetState(this);
				var h = this[HANDLERS];
				if (!h) {
					h = {};
					defineProperty(this, HANDLERS, {value: h});
				}
				var slot = h[type];
				if (!slot) {
					slot = h[type] = {fn: null};
					slot.listener = function (event) {
						if (typeof slot.fn === 'function')
							return slot.fn.call(this, event);
					};
					this.addEventListener(type, slot.listener);
				}
				slot.fn = typeof fn === 'function' || (fn && typeof fn === 'object') ? fn : null;
			}});
	}

	/* ---- AbortSignal and AbortController */

	function isSignal(s) { return Object(s) === s && hasOwn.call(s, SIGNAL); }

	function signalState(s) {
		if (!isSignal(s))
			throw nodeError(TypeError, 'ERR_INVALID_THIS', 'Value of "this" must be of type AbortSignal');
		return s[SIGNAL];
	}

	var making = false;

	function AbortSignal() {
		if (!making)
			throw illegal();
		EventTarget.call(this);
		defineProperty(this, SIGNAL, {value: {aborted: false, reason: undefined, algorithms: [],
						      dependents: []}});
	}
	AbortSignal.prototype = Object.create(TP);
	Object.setPrototypeOf(AbortSignal, EventTarget);
	var SP = AbortSignal.prototype;
	define(SP, 'constructor', AbortSignal);

	function newSignal() {
		making = true;
		try {
			return new AbortSignal();
		} finally {
			making = false;
		}
	}

	/* What follows an abort of s without being a listener a script can
	 * see: the abort algorithms (addEventListener's signal option) run
	 * before the abort event, the dependent signals of AbortSignal.any
	 * are aborted after it. */
	function addAlgorithm(s, fn) {
		if (!s[SIGNAL].aborted)
			s[SIGNAL].algorithms.push(fn);
	}

	/* Signal abort (DOM 3.2.5): the reason, the abort algorithms, the
	 * abort event, then the dependents; once. */
	function abortSignal(s, reason) {
		var st = s[SIGNAL];
		if (st.aborted)
			return;
		st.aborted = true;
		st.reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError')
						 : reason;
		var algorithms = st.algorithms, dependents = st.dependents;
		st.algorithms = [];
		st.dependents = [];
		for (var i = 0; i < algorithms.length; i++)
			algorithms[i]();
		var event = new Event('abort');
		event[EVENT].trusted = true;
		dispatch(s, event);
		for (var j = 0; j < dependents.length; j++)
			abortSignal(dependents[j], st.reason);
	}

	getter(SP, 'aborted', function () { return signalState(this).aborted; });
	getter(SP, 'reason', function () { return signalState(this).reason; });
	define(SP, 'throwIfAborted', function throwIfAborted() {
		var st = signalState(this);
		if (st.aborted)
			throw st.reason;
	});
	handlerProperty(SP, 'abort');
	tag(SP, 'AbortSignal');
	define(SP, INSPECT, inspectAs('AbortSignal', function (s) {
		return {aborted: signalState(s).aborted};
	}));

	define(AbortSignal, 'abort', function abort(reason) {
		var s = newSignal();
		abortSignal(s, reason);
		return s;
	});

	/* A signal that aborts after delay ms with a TimeoutError, through
	 * the global setTimeout of the moment. Its timer does not keep the
	 * execution alive (Node unrefs it): an execution with nothing else
	 * left to do ends without it. */
	define(AbortSignal, 'timeout', function timeout(delay) {
		if (typeof delay !== 'number')
			throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
					'The "delay" argument must be of type number.' + received(delay));
		if (delay !== delay || !isFinite(delay) || Math.floor(delay) !== delay)
			throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', 'The value of "delay" is out of ' +
					'range. It must be an integer. Received ' + String(delay));
		if (!(delay >= 0 && delay <= 4294967295))
			throw nodeError(RangeError, 'ERR_OUT_OF_RANGE',
					'The value of "delay" is out of range. It must be >= 0 && <= 4294967295. ' +
					'Received ' + String(delay));
		var s = newSignal(), set = global.setTimeout;
		if (typeof set !== 'function')
			throw new TypeError('AbortSignal.timeout: setTimeout is not available');
		var t = set(function () {
			abortSignal(s, new DOMException('The operation was aborted due to timeout',
							'TimeoutError'));
		}, delay);
		if (t && typeof t.unref === 'function')
			t.unref();
		return s;
	});

	/* A signal that aborts with the first of signals to abort (DOM
	 * 3.2.4), at once if one already has. */
	define(AbortSignal, 'any', function any(signals) {
		var list = [];
		global.Array.from(signals).forEach(function (s, i) {
			if (!isSignal(s))
				throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "signals[' + i +
						']" argument must be an instance of AbortSignal.' + received(s));
			list.push(s);
		});
		var out = newSignal();
		for (var i = 0; i < list.length; i++)
			if (list[i][SIGNAL].aborted) {
				abortSignal(out, list[i][SIGNAL].reason);
				return out;
			}
		for (var j = 0; j < list.length; j++)
			list[j][SIGNAL].dependents.push(out);
		return out;
	});

	function AbortController() {
		if (!(this instanceof AbortController))
			throw new TypeError("Class constructor AbortController cannot be invoked without 'new'");
		defineProperty(this, CONTROLLER, {value: newSignal()});
	}
	var CP = AbortController.prototype;
	function controllerSignal(c) {
		if (Object(c) !== c || !hasOwn.call(c, CONTROLLER))
			throw nodeError(TypeError, 'ERR_INVALID_THIS',
					'Value of "this" must be of type AbortController');
		return c[CONTROLLER];
	}
	getter(CP, 'signal', function () { return controllerSignal(this); });
	define(CP, 'abort', function abort(reason) { abortSignal(controllerSignal(this), reason); });
	tag(CP, 'AbortController');
	define(CP, INSPECT, inspectAs('AbortController', function (c) {
		return {signal: controllerSignal(c)};
	}));

	var names = {Event: Event, EventTarget: EventTarget, AbortSignal: AbortSignal,
		     AbortController: AbortController};
	for (var n in names)
		if (hasOwn.call(names, n))
			define(global, n, names[n]);
	defineProperty(AbortSignal.abort, 'length', {value: 0, configurable: true});
	defineProperty(CP.abort, 'length', {value: 0, configurable: true});
})
