/*
 * console.js - the console object, as Node 20's global console behaves
 * when its output is not a terminal.
 *
 * Runs once, in the forkserver's prepared engine; each worker's copy holds
 * its own counters, timers and group indentation. ES5 only. Evaluates to a
 * function of
 *
 *   write(fd, s)   the engine's primitive: s to stdout (1) or stderr (2)
 *   clock()        milliseconds on a monotonic clock
 *   emitWarning(type, m)  a process warning, as Node's process.emitWarning
 *                  prints it ("(node:1) Warning: m" on stderr after the
 *                  running job): the event loop's (timers.js), which writes
 *                  it through this console's error
 *   util           {inspect, format, formatWithOptions}, inspect.js's
 *   files          the names the submitted code is compiled under
 *
 * that returns the console. The primitives are held in this closure alone:
 * no script can reach them.
 *
 * What Node's methods look up at call time, these do too: console.assert
 * prints through console.warn; count, group, groupCollapsed, table,
 * timeLog and timeEnd through console.log; trace through console.error;
 * each read from the console object when called, so that a script that
 * replaces one sees it used.
 */
(function (write, clock, emitWarning, util, files) {
	'use strict';
	/* Built-ins taken now, so that a script that replaces them changes
	 * nothing here. */
	var bind = Function.prototype.bind, call = Function.prototype.call;
	function uncurry(f) { return bind.call(call, f); }
	var apply = uncurry(Function.prototype.apply);
	var slice = uncurry(Array.prototype.slice), push = uncurry(Array.prototype.push);
	var join = uncurry(Array.prototype.join), map = uncurry(Array.prototype.map);
	var indexOf = uncurry(String.prototype.indexOf), replace = uncurry(String.prototype.replace);
	var strSlice = uncurry(String.prototype.slice), split = uncurry(String.prototype.split);
	var charCodeAt = uncurry(String.prototype.charCodeAt);
	var toFixed = uncurry(Number.prototype.toFixed);
	var hasOwn = uncurry(Object.prototype.hasOwnProperty);
	var isEnumerable = uncurry(Object.prototype.propertyIsEnumerable);
	var keys = Object.keys, create = Object.create, defineProperty = Object.defineProperty;
	var ownSymbols = Object.getOwnPropertySymbols, isArray = Array.isArray;
	var String_ = String, Number_ = Number, floor = Math.floor, ceil = Math.ceil;
	var max = Math.max, TypeError_ = TypeError;
	var mapHas = uncurry(Map.prototype.has), mapForEach = uncurry(Map.prototype.forEach);
	var setHas = uncurry(Set.prototype.has), setForEach = uncurry(Set.prototype.forEach);
	var isView = ArrayBuffer.isView, classOf = uncurry(Object.prototype.toString);
	var lastIndexOf = uncurry(String.prototype.lastIndexOf);
	var inspect = util.inspect, format = util.format;

	var STDOUT = 1, STDERR = 2;

	/* `${v}`: String(v), but a symbol throws as a template literal does. */
	function str(v) {
		if (typeof v === 'symbol')
			throw new TypeError_('Cannot convert a Symbol value to a string');
		return String_(v);
	}

	function labelOf(v) { return v === undefined ? 'default' : str(v); }

	/* ---- writing, indented by console.group */

	var indent = '';

	function emit(fd, s) {
		if (indent.length) {
			if (indexOf(s, '\n') >= 0)
				s = replace(s, /\n/g, '\n' + indent);
			s = indent + s;
		}
		write(fd, s + '\n');
	}

	/* The method name of the console, as it is now. */
	function method(name, args) { apply(con[name], con, args); }

	function warning(message) { emitWarning('Warning', message); }

	/* ---- errors as Node's validators raise them */

	/* Node's description of a value an argument should not have been. */
	function received(v) {
		if (v === null || v === undefined)
			return 'Received ' + v;
		if (typeof v === 'function' && v.name)
			return 'Received function ' + v.name;
		if (typeof v === 'object') {
			var ctor = v.constructor;
			if (ctor && ctor.name)
				return 'Received an instance of ' + ctor.name;
			return 'Received ' + inspect(v, {depth: -1});
		}
		var shown = inspect(v, {colors: false});
		if (shown.length > 28)
			shown = strSlice(shown, 0, 25) + '...';
		return 'Received type ' + typeof v + ' (' + shown + ')';
	}

	function argTypeError(name, what, v) {
		var e = new TypeError_('The "' + name + '" argument must be ' + what + '. ' +
				       received(v));
		e.code = 'ERR_INVALID_ARG_TYPE';
		return e;
	}

	/* ---- console.time */

	var times = create(null);

	/* ms as Node prints a duration: "1.234ms", "1.500s", "1:02.003 (m:ss.mmm)". */
	function formatTime(ms) {
		var hours = 0, minutes = 0, seconds = 0;
		if (ms >= 1000) {
			if (ms >= 60000) {
				if (ms >= 3600000) {
					hours = floor(ms / 3600000);
					ms = ms % 3600000;
				}
				minutes = floor(ms / 60000);
				ms = ms % 60000;
			}
			seconds = ms / 1000;
		}
		if (hours !== 0 || minutes !== 0) {
			var parts = split(toFixed(seconds, 3), '.');
			var secs = parts[0].length < 2 ? '0' + parts[0] : parts[0];
			var mins = String_(minutes);
			var head = hours !== 0 ? hours + ':' + (mins.length < 2 ? '0' + mins : mins) : mins;
			return head + ':' + secs + '.' + parts[1] + ' (' + (hours !== 0 ? 'h:m' : '') +
				'm:ss.mmm)';
		}
		if (seconds !== 0)
			return toFixed(seconds, 3) + 's';
		return Number_(toFixed(ms, 3)) + 'ms';
	}

	/* Prints label's time so far with data after it; false (and a warning)
	 * when no timer has that label. */
	function logTime(name, label, data) {
		var key = '$' + label;
		if (!(key in times)) {
			warning("No such label '" + label + "' for console." + name + '()');
			return false;
		}
		var args = ['%s: %s', label, formatTime(clock() - times[key])];
		for (var i = 0; data && i < data.length; i++)
			push(args, data[i]);
		method('log', args);
		return true;
	}

	/* ---- console.count */

	var counts = create(null);

	/* ---- console.trace */

	/* The frames of stack (an error's, made where the trace was asked
	 * for) in the submitted code, innermost first, as "    at NAME
	 * (FILE:LINE)" lines. */
	function scriptFrames(stack) {
		var lines = split(String_(stack), '\n'), out = [];
		for (var i = 1; i < lines.length; i++) {
			var line = lines[i], open = lastIndexOf(line, '(');
			if (open < 0)
				continue;
			for (var f = 0; f < files.length; f++)
				if (strSlice(line, open + 1, open + 2 + files[f].length) === files[f] + ':') {
					push(out, line);
					break;
				}
		}
		return out;
	}

	/* ---- console.table: Node's box drawing */

	/* Columns a string takes on a terminal: East Asian wide and full-width
	 * characters two, combining marks and controls none, as Node counts
	 * without ICU (escape sequences are not removed). */
	function wide(c) {
		return c >= 0x1100 && (c <= 0x115f || c === 0x2329 || c === 0x232a ||
			(c >= 0x2e80 && c <= 0x3247 && c !== 0x303f) || (c >= 0x3250 && c <= 0x4dbf) ||
			(c >= 0x4e00 && c <= 0xa4c6) || (c >= 0xa960 && c <= 0xa97c) ||
			(c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
			(c >= 0xfe10 && c <= 0xfe19) || (c >= 0xfe30 && c <= 0xfe6b) ||
			(c >= 0xff01 && c <= 0xff60) || (c >= 0xffe0 && c <= 0xffe6) ||
			(c >= 0x1b000 && c <= 0x1b001) || (c >= 0x1f200 && c <= 0x1f251) ||
			(c >= 0x1f300 && c <= 0x1f64f) || (c >= 0x1f680 && c <= 0x1f6ff) ||
			(c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x3fffd));
	}

	function zeroWidth(c) {
		return c <= 0x1f || (c >= 0x7f && c <= 0x9f) || (c >= 0x300 && c <= 0x36f) ||
			(c >= 0x200b && c <= 0x200f) || (c >= 0x20d0 && c <= 0x20ff) ||
			(c >= 0xfe00 && c <= 0xfe0f) || (c >= 0xfe20 && c <= 0xfe2f) ||
			(c >= 0xe0100 && c <= 0xe01ef);
	}

	function width(s) {
		var n = 0;
		for (var i = 0; i < s.length; i++) {
			var c = charCodeAt(s, i);
			if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
				var d = charCodeAt(s, i + 1);
				if (d >= 0xdc00 && d <= 0xdfff) {
					c = (c - 0xd800) * 0x400 + d - 0xdc00 + 0x10000;
					i++;
				}
			}
			n += wide(c) ? 2 : zeroWidth(c) ? 0 : 1;
		}
		return n;
	}

	function repeat(s, n) {
		var out = '';
		for (var i = 0; i < n; i++)
			out += s;
		return out;
	}

	function renderRow(row, widths) {
		var out = '│ ';
		for (var i = 0; i < row.length; i++) {
			out += row[i] + repeat(' ', ceil(widths[i] - width(row[i])));
			if (i !== row.length - 1)
				out += ' │ ';
		}
		return out + ' │';
	}

	/* The table of columns (arrays, possibly sparse) under head. */
	function renderTable(head, columns) {
		var rows = [], widths = map(head, width), longest = 0, i, j;
		for (i = 0; i < columns.length; i++)
			longest = max(longest, columns[i].length);
		for (i = 0; i < head.length; i++)
			for (j = 0; j < longest; j++) {
				if (rows[j] === undefined)
					rows[j] = [];
				var cell = rows[j][i] = hasOwn(columns[i], j) ? columns[i][j] : '';
				widths[i] = max(widths[i] || 0, width(cell));
			}
		var divider = map(widths, function (w) { return repeat('─', w + 2); });
		var out = '┌' + join(divider, '┬') + '┐\n' + renderRow(head, widths) + '\n' + '├' +
			join(divider, '┼') + '┤\n';
		for (i = 0; i < rows.length; i++)
			out += renderRow(rows[i], widths) + '\n';
		return out + '└' + join(divider, '┴') + '┘';
	}

	function isMap(v) {
		try {
			mapHas(v, undefined);
			return true;
		} catch (e) {
			return false;
		}
	}

	function isSet(v) {
		try {
			setHas(v, undefined);
			return true;
		} catch (e) {
			return false;
		}
	}

	function isTyped(v) { return isView(v) && classOf(v) !== '[object DataView]'; }

	/* A cell: inspected on one line, nested objects cut short. */
	function cellOf(v) {
		var depth = v !== null && typeof v === 'object' && !isArray(v) && !isTyped(v) &&
			keys(v).length > 2 ? -1 : 0;
		return inspect(v, {depth: depth, maxArrayLength: 3, breakLength: Infinity});
	}

	function indexColumn(n) {
		var out = [];
		for (var i = 0; i < n; i++)
			push(out, cellOf(i));
		return out;
	}

	function tabulate(data, properties) {
		if (properties !== undefined && !isArray(properties))
			throw argTypeError('properties', 'an instance of Array', properties);
		if (data === null || typeof data !== 'object')
			return method('log', [data]);
		var log = function (head, columns) { method('log', [renderTable(head, columns)]); };
		var values = [];
		if (isMap(data)) {
			var ks = [];
			mapForEach(data, function (v, k) {
				push(ks, cellOf(k));
				push(values, cellOf(v));
			});
			return log(['(iteration index)', 'Key', 'Values'],
				   [indexColumn(values.length), ks, values]);
		}
		if (isSet(data)) {
			setForEach(data, function (v) { push(values, cellOf(v)); });
			return log(['(iteration index)', 'Values'], [indexColumn(values.length), values]);
		}
		var columns = create(null), names = [], primitives = false;
		var index = keys(data);
		for (var i = 0; i < index.length; i++) {
			var item = data[index[i]];
			var primitive = item === null ||
				(typeof item !== 'function' && typeof item !== 'object');
			if (properties === undefined && primitive) {
				primitives = true;
				values[i] = cellOf(item);
				continue;
			}
			var own = properties || keys(item);
			for (var k = 0; k < own.length; k++) {
				/* A symbol among the properties names no column, as
				 * Object.keys skips it in Node. */
				if (typeof own[k] === 'symbol')
					continue;
				var key = String_(own[k]), slot = '$' + key;
				if (!(slot in columns)) {
					columns[slot] = [];
					push(names, key);
				}
				columns[slot][i] = (primitive && properties) || !hasOwn(item, own[k]) ? ''
					: cellOf(item[own[k]]);
			}
		}
		/* The columns in the order Object.keys gives a record of them. */
		var order = create(null);
		for (i = 0; i < names.length; i++)
			order[names[i]] = true;
		var head = ['(index)'], cols = [index];
		names = keys(order);
		for (i = 0; i < names.length; i++) {
			push(head, names[i]);
			push(cols, columns['$' + names[i]]);
		}
		if (primitives) {
			push(head, 'Values');
			push(cols, values);
		}
		return log(head, cols);
	}

	/* ---- the object */

	var con = {};

	function put(name, fn) {
		defineProperty(con, name, {value: fn, writable: true, enumerable: true,
					   configurable: true});
	}

	/* Each method a function of its own, named as Node's are. */
	function log() { emit(STDOUT, apply(format, null, arguments)); }
	function info() { emit(STDOUT, apply(format, null, arguments)); }
	function debug() { emit(STDOUT, apply(format, null, arguments)); }
	function dirxml() { emit(STDOUT, apply(format, null, arguments)); }
	function warn() { emit(STDERR, apply(format, null, arguments)); }
	function error() { emit(STDERR, apply(format, null, arguments)); }

	/* Node's order of the keys. */
	put('log', log);
	put('warn', warn);
	/* Every method takes its arguments from `arguments`: each has a
	 * length of 0, as Node's have. */
	put('dir', function dir() {
		var object = arguments[0], options = arguments[1];
		var opts = {customInspect: false};
		if (options !== null && options !== undefined) {
			var o = Object(options), own = keys(o), i;
			for (i = 0; i < own.length; i++)
				opts[own[i]] = o[own[i]];
			var syms = ownSymbols(o);
			for (i = 0; i < syms.length; i++)
				if (isEnumerable(o, syms[i]))
					opts[syms[i]] = o[syms[i]];
		}
		emit(STDOUT, inspect(object, opts));
	});
	put('time', function time() {
		var label = labelOf(arguments[0]);
		if ('$' + label in times) {
			warning("Label '" + label + "' already exists for console.time()");
			return;
		}
		times['$' + label] = clock();
	});
	put('timeEnd', function timeEnd() {
		var label = labelOf(arguments[0]);
		if (logTime('timeEnd', label))
			delete times['$' + label];
	});
	put('timeLog', function timeLog() {
		logTime('timeLog', labelOf(arguments[0]), slice(arguments, 1));
	});
	put('trace', function trace() {
		/* Made here, so that the engine's ten frames hold as many of
		 * the script's as they can. */
		var stack = new Error().stack;
		var message = apply(format, null, arguments);
		var frames = scriptFrames(stack);
		var text = 'Trace' + (message ? ': ' + message : '');
		if (frames.length)
			text += '\n' + join(frames, '\n');
		method('error', [text]);
	});
	put('assert', function assert() {
		if (arguments[0])
			return;
		var args = slice(arguments, 1);
		args[0] = 'Assertion failed' + (args.length === 0 ? '' : ': ' + str(args[0]));
		method('warn', args);
	});
	put('clear', function clear() {});
	put('count', function count() {
		var label = labelOf(arguments[0]);
		var slot = '$' + label, n = slot in counts ? counts[slot] + 1 : 1;
		counts[slot] = n;
		method('log', [label + ': ' + n]);
	});
	put('countReset', function countReset() {
		var label = arguments[0];
		if (label === undefined)
			label = 'default';
		/* Node looks the label up as given and counts under its string:
		 * only a string label is ever found. */
		if (typeof label !== 'string' || !('$' + label in counts)) {
			warning("Count for '" + str(label) + "' does not exist");
			return;
		}
		delete counts['$' + label];
	});
	function group() {
		if (arguments.length > 0)
			method('log', arguments);
		indent += '  ';
	}
	function groupCollapsed() {
		if (arguments.length > 0)
			method('log', arguments);
		indent += '  ';
	}
	put('group', group);
	put('groupEnd', function groupEnd() { indent = strSlice(indent, 0, indent.length - 2); });
	put('table', function table() {
		tabulate(arguments[0], arguments[1]);
	});
	put('debug', debug);
	put('info', info);
	put('dirxml', dirxml);
	put('error', error);
	put('groupCollapsed', groupCollapsed);
	/* Without an inspector these record nothing in Node either. */
	put('profile', function profile() {});
	put('profileEnd', function profileEnd() {});
	put('timeStamp', function timeStamp() {});
	defineProperty(con, Symbol.toStringTag, {value: 'console', writable: false,
						  enumerable: false, configurable: true});

	return con;
})
