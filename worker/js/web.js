/*
 * web.js - the web platform globals Node 20 has and Duktape 2.7 lacks:
 * DOMException, structuredClone, atob and btoa, crypto.getRandomValues and
 * crypto.randomUUID, TextEncoder.prototype.encodeInto and the text
 * decoder's errors as Node words them, performance.now and
 * performance.timeOrigin.
 *
 * Runs once, in the forkserver's prepared engine (after polyfills.js, whose
 * Map, Set and Promise it uses), so workers get it for free. ES5 only. It
 * is called with the global object, the engine's primitives and the hidden
 * keys (see polyfills.js):
 *
 *   prim.fill(view)  fills an integer typed array's bytes from getrandom
 *   prim.now()       milliseconds, monotonic, since the worker started
 *   prim.origin()    the wall-clock time (ms since the epoch) it started at
 *
 * The primitives stay in this closure: no global and no object a script can
 * make holds them. Evaluates to the DOMException constructor, which the
 * engine keeps in the stash for the other modules.
 */
(function (global, prim, hidden) {
	'use strict';
	var defineProperty = Object.defineProperty;
	var getPrototypeOf = Object.getPrototypeOf;
	var hasOwn = Object.prototype.hasOwnProperty;
	var objectToString = Object.prototype.toString;
	var keysOf = Object.keys;
	var isArray = Array.isArray;
	var fill = prim.fill, now = prim.now, origin = prim.origin;

	function define(obj, name, value) {
		defineProperty(obj, name, {value: value, writable: true, configurable: true,
					   enumerable: false});
	}

	/* A global as Node 20 defines it: enumerable, like atob and btoa. */
	function defineGlobal(name, value, enumerable) {
		defineProperty(global, name, {value: value, writable: true, configurable: true,
					      enumerable: enumerable});
	}

	function call(fn, self) {
		return Function.prototype.call.apply(fn, Array.prototype.slice.call(arguments, 1));
	}

	/* Gives e an own stack (as V8's errors have) without this file's
	 * frames: the script's author sees where the script called, not how
	 * web.js got there. */
	var INTERNAL_FRAME = /^ {4}at .*\(web\.js:\d+\)$/;
	function ownStack(e) {
		var stack = e.stack;
		if (typeof stack === 'string')
			define(e, 'stack', stack.split('\n').filter(function (line) {
				return !INTERNAL_FRAME.test(line);
			}).join('\n'));
		return e;
	}

	/* Node's own errors: a TypeError (or another) carrying its code. */
	function nodeError(Ctor, code, message) {
		var e = new Ctor(message);
		e.code = code;
		return ownStack(e);
	}

	/* ---- DOMException: the name and the legacy code of WebIDL's table. */

	var LEGACY = [
		['IndexSizeError', 'INDEX_SIZE_ERR'], [null, 'DOMSTRING_SIZE_ERR'],
		['HierarchyRequestError', 'HIERARCHY_REQUEST_ERR'],
		['WrongDocumentError', 'WRONG_DOCUMENT_ERR'],
		['InvalidCharacterError', 'INVALID_CHARACTER_ERR'], [null, 'NO_DATA_ALLOWED_ERR'],
		['NoModificationAllowedError', 'NO_MODIFICATION_ALLOWED_ERR'],
		['NotFoundError', 'NOT_FOUND_ERR'], ['NotSupportedError', 'NOT_SUPPORTED_ERR'],
		['InUseAttributeError', 'INUSE_ATTRIBUTE_ERR'],
		['InvalidStateError', 'INVALID_STATE_ERR'], ['SyntaxError', 'SYNTAX_ERR'],
		['InvalidModificationError', 'INVALID_MODIFICATION_ERR'],
		['NamespaceError', 'NAMESPACE_ERR'], ['InvalidAccessError', 'INVALID_ACCESS_ERR'],
		[null, 'VALIDATION_ERR'], ['TypeMismatchError', 'TYPE_MISMATCH_ERR'],
		['SecurityError', 'SECURITY_ERR'], ['NetworkError', 'NETWORK_ERR'],
		['AbortError', 'ABORT_ERR'], ['URLMismatchError', 'URL_MISMATCH_ERR'],
		['QuotaExceededError', 'QUOTA_EXCEEDED_ERR'], ['TimeoutError', 'TIMEOUT_ERR'],
		['InvalidNodeTypeError', 'INVALID_NODE_TYPE_ERR'],
		['DataCloneError', 'DATA_CLONE_ERR']
	];
	var codeOf = Object.create(null);
	var DOM = hidden.fresh();

	/* new DOMException(message = '', options = 'Error'): options is the
	 * name, or {name, cause}. The error is made by Error, so that it has a
	 * stack; its name, message and code live under a hidden key and are
	 * read through the prototype's getters, as Node's are. */
	function DOMException(message, options) {
		if (!(this instanceof DOMException))
			throw new TypeError("Class constructor DOMException cannot be invoked without 'new'");
		var e = new Error();
		setPrototype(e, getPrototypeOf(this));
		/* An options object's name is read as it is: {} names "undefined",
		 * as in Node. */
		var name = 'Error';
		if (options !== null && typeof options === 'object') {
			if ('cause' in options)
				define(e, 'cause', options.cause);
			name = String(options.name);
		} else if (options !== undefined) {
			name = String(options);
		}
		var text = message === undefined ? '' : String(message);
		defineProperty(e, DOM, {value: {name: name, message: text,
						code: codeOf[name] || 0}});
		return ownStack(e);
	}
	var setPrototype = Object.setPrototypeOf;
	var DP = DOMException.prototype = Object.create(Error.prototype);
	define(DP, 'constructor', DOMException);
	function domState(self) {
		var s = self !== null && typeof self === 'object' ? self[DOM] : undefined;
		if (!s)
			throw nodeError(TypeError, 'ERR_INVALID_THIS',
					'Value of "this" must be of DOMException');
		return s;
	}
	['name', 'message', 'code'].forEach(function (k) {
		defineProperty(DP, k, {get: function () { return domState(this)[k]; },
				       enumerable: true, configurable: true});
	});
	for (var i = 0; i < LEGACY.length; i++) {
		var constant = {value: i + 1, writable: false, enumerable: true, configurable: false};
		defineProperty(DOMException, LEGACY[i][1], constant);
		defineProperty(DP, LEGACY[i][1], constant);
		if (LEGACY[i][0])
			codeOf[LEGACY[i][0]] = i + 1;
	}
	defineProperty(DP, Symbol.toStringTag, {value: 'DOMException', configurable: true});
	defineProperty(DOMException, 'length', {value: 0, configurable: true});

	function domError(message, name) {
		return new DOMException(message, name);
	}

	/* ---- structuredClone: HTML's StructuredSerialize and Deserialize in
	 * one walk, as V8's serializer does them: the same values cloned, the
	 * same getters read in the same order, the same errors. */

	var MapC = global.Map, SetC = global.Set;
	var mapSet = MapC.prototype.set, mapGet = MapC.prototype.get;
	var mapHas = MapC.prototype.has, mapForEach = MapC.prototype.forEach;
	var setAdd = SetC.prototype.add, setForEach = SetC.prototype.forEach;
	var TABLE = hidden.table, PROMISE = hidden.promise, GEN = hidden.gen;
	var dateTime = Date.prototype.getTime;
	var numberValue = Number.prototype.valueOf, stringValue = String.prototype.valueOf;
	var booleanValue = Boolean.prototype.valueOf, symbolValue = Symbol.prototype.valueOf;
	var regexpSource = Object.getOwnPropertyDescriptor(RegExp.prototype, 'source');
	var bufferSlice = ArrayBuffer.prototype.slice, isView = ArrayBuffer.isView;
	var VIEWS = {
		Int8Array: Int8Array, Uint8Array: Uint8Array, Uint8ClampedArray: Uint8ClampedArray,
		Int16Array: Int16Array, Uint16Array: Uint16Array, Int32Array: Int32Array,
		Uint32Array: Uint32Array, Float32Array: Float32Array, Float64Array: Float64Array,
		DataView: DataView
	};
	var ERRORS = {EvalError: EvalError, RangeError: RangeError,
		      ReferenceError: ReferenceError, SyntaxError: SyntaxError,
		      TypeError: TypeError, URIError: URIError};

	/* Whether fn(v) runs: the brand checks of the built-ins' methods. */
	function branded(fn, v) {
		try {
			fn.call(v);
			return true;
		} catch (e) {
			return false;
		}
	}

	function builtinClass(v) {
		return objectToString.call(v).slice(8, -1);
	}

	function uncloneable(v) {
		var text;
		if (typeof v === 'function' || typeof v === 'symbol') {
			text = String(v);
		} else if (builtinClass(v) === 'Generator') {
			text = '[object Generator]';
		} else {
			var ctor = v[TABLE] ? v[TABLE].kind : hasOwn.call(v, PROMISE) ? 'Promise' : 'Object';
			text = '#<' + ctor + '>';
		}
		return domError(text + ' could not be cloned.', 'DataCloneError');
	}

	function Cloner(transfer) {
		this.memory = new MapC();
		this.transfer = transfer;
	}

	/* The clone of v, from memory when v was met before (shared references
	 * and cycles stay so). */
	Cloner.prototype.clone = function (v) {
		if (typeof v === 'symbol' || typeof v === 'function')
			throw uncloneable(v);
		if (v === null || typeof v !== 'object')
			return v;
		if (call(mapHas, this.memory, v))
			return call(mapGet, this.memory, v);
		return this.object(v);
	};

	Cloner.prototype.remember = function (v, copy) {
		call(mapSet, this.memory, v, copy);
		return copy;
	};

	Cloner.prototype.object = function (v) {
		var self = this, copy;
		if (v === global)
			throw uncloneable({});
		if (isArray(v)) {
			copy = this.remember(v, new Array(v.length));
			this.properties(v, copy);
			return copy;
		}
		if (branded(dateTime, v))
			return this.remember(v, new Date(dateTime.call(v)));
		if (regexpSource && regexpSource.get && v !== RegExp.prototype &&
		    branded(regexpSource.get, v))
			return this.remember(v, new RegExp(regexpSource.get.call(v), v.flags));
		if (branded(symbolValue, v))
			throw domError('[object Symbol] could not be cloned.', 'DataCloneError');
		if (branded(numberValue, v))
			return this.remember(v, Object(numberValue.call(v)));
		if (branded(stringValue, v))
			return this.remember(v, Object(stringValue.call(v)));
		if (branded(booleanValue, v))
			return this.remember(v, Object(booleanValue.call(v)));
		var cls = builtinClass(v);
		if (cls === 'ArrayBuffer' && !isView(v))
			return this.remember(v, bufferSlice.call(v, 0));
		if (isView(v) && hasOwn.call(VIEWS, cls)) {
			var buffer = this.clone(v.buffer);
			var Ctor = VIEWS[cls];
			copy = cls === 'DataView' ? new DataView(buffer, v.byteOffset, v.byteLength)
						  : new Ctor(buffer, v.byteOffset, v.length);
			return this.remember(v, copy);
		}
		var table = v[TABLE];
		if (table && table.kind === 'Map') {
			copy = this.remember(v, new MapC());
			var entries = [];
			call(mapForEach, v, function (value, key) { entries.push(key, value); });
			for (var i = 0; i < entries.length; i += 2)
				call(mapSet, copy, this.clone(entries[i]), this.clone(entries[i + 1]));
			return copy;
		}
		if (table && table.kind === 'Set') {
			copy = this.remember(v, new SetC());
			var values = [];
			call(setForEach, v, function (value) { values.push(value); });
			for (var j = 0; j < values.length; j++)
				call(setAdd, copy, this.clone(values[j]));
			return copy;
		}
		if (table || hasOwn.call(v, PROMISE) || v[GEN] || cls === 'Generator' ||
		    cls === 'Arguments')
			throw uncloneable(v);
		if (cls === 'Error')
			return this.error(v);
		copy = this.remember(v, {});
		self.properties(v, copy);
		return copy;
	};

	/* An object's own enumerable string-keyed properties, listed first and
	 * each read (getters run) if it is still there when its turn comes. */
	Cloner.prototype.properties = function (v, copy) {
		var keys = keysOf(v);
		for (var i = 0; i < keys.length; i++)
			if (hasOwn.call(v, keys[i]))
				copy[keys[i]] = this.clone(v[keys[i]]);
	};

	/* An error keeps its kind (among the standard ones), its own message,
	 * its stack and its own cause; its other fields are not cloned. */
	Cloner.prototype.error = function (v) {
		var name = String(v.name);
		var Ctor = hasOwn.call(ERRORS, name) ? ERRORS[name] : Error;
		var copy = this.remember(v, new Ctor());
		var d = Object.getOwnPropertyDescriptor(v, 'message');
		if (d && 'value' in d)
			define(copy, 'message', String(d.value));
		/* An own stack always: the one cloned, or undefined (not the
		 * engine's trace of this function). */
		var stack = v.stack;
		define(copy, 'stack', typeof stack === 'string' ? stack : undefined);
		d = Object.getOwnPropertyDescriptor(v, 'cause');
		if (d && 'value' in d)
			define(copy, 'cause', this.clone(d.value));
		return copy;
	};

	/* The transfer list: ArrayBuffers, each once. */
	function transferList(options) {
		if (options === undefined || options === null)
			return [];
		if (typeof options !== 'object' && typeof options !== 'function')
			throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
					'The options argument must be either an object or undefined');
		var t = options.transfer;
		if (t === undefined || t === null)
			return [];
		if (Object(t) !== t || typeof t[Symbol.iterator] !== 'function')
			throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
					'Optional transferList argument must be an iterable');
		var list = Array.from(t);
		for (var i = 0; i < list.length; i++) {
			var b = list[i];
			if (Object(b) !== b || builtinClass(b) !== 'ArrayBuffer' || isView(b))
				throw nodeError(TypeError, 'ERR_INVALID_TRANSFER_OBJECT',
						'Found invalid object in transferList');
			if (list.indexOf(b) !== i)
				throw domError('Transfer list contains duplicate ArrayBuffer',
					       'DataCloneError');
		}
		return list;
	}

	function structuredClone(value) {
		if (arguments.length === 0)
			throw nodeError(TypeError, 'ERR_MISSING_ARGS',
					'The value argument must be specified');
		var cloner = new Cloner(transferList(arguments[1]));
		return cloner.clone(value);
	}
	defineProperty(structuredClone, 'length', {value: 0, configurable: true});

	/* ---- atob and btoa: forgiving base64 (WHATWG infra), Latin-1 strings */

	var ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
	var SIXBITS = Object.create(null);
	for (var k = 0; k < 64; k++)
		SIXBITS[ALPHABET.charAt(k)] = k;

	function isBase64Space(c) {
		return c === ' ' || c === '\t' || c === '\n' || c === '\f' || c === '\r';
	}

	function btoa(input) {
		if (arguments.length === 0)
			throw nodeError(TypeError, 'ERR_MISSING_ARGS',
					'The "input" argument must be specified');
		var s = String(input), out = '';
		for (var i = 0; i < s.length; i++)
			if (s.charCodeAt(i) > 0xff)
				throw domError('Invalid character', 'InvalidCharacterError');
		for (var j = 0; j < s.length; j += 3) {
			var a = s.charCodeAt(j), b = s.charCodeAt(j + 1), c = s.charCodeAt(j + 2);
			var n = (a << 16) | ((b || 0) << 8) | (c || 0);
			out += ALPHABET.charAt(n >> 18) + ALPHABET.charAt((n >> 12) & 63) +
			       (j + 1 < s.length ? ALPHABET.charAt((n >> 6) & 63) : '=') +
			       (j + 2 < s.length ? ALPHABET.charAt(n & 63) : '=');
		}
		return out;
	}

	function atob(input) {
		if (arguments.length === 0)
			throw nodeError(TypeError, 'ERR_MISSING_ARGS',
					'The "input" argument must be specified');
		var s = String(input), data = '', equals = 0;
		for (var i = 0; i < s.length; i++) {
			var c = s.charAt(i);
			if (isBase64Space(c))
				continue;
			if (c === '=') {
				if (++equals > 2)
					throw domError('Invalid character', 'InvalidCharacterError');
			} else if (equals || !(c in SIXBITS)) {
				/* '=' only at the end; nothing outside the alphabet. */
				throw domError('Invalid character', 'InvalidCharacterError');
			}
			data += c;
		}
		var rest = data.length % 4;
		if (rest === 0)
			rest = (data.length - equals) % 4;
		else if (equals)
			throw domError('Invalid character', 'InvalidCharacterError');
		if (rest === 1)
			throw domError('The string to be decoded is not correctly encoded.',
				       'InvalidCharacterError');
		data = data.slice(0, data.length - equals);
		var out = '', bits = 0, nbits = 0;
		for (var j = 0; j < data.length; j++) {
			bits = (bits << 6) | SIXBITS[data.charAt(j)];
			nbits += 6;
			if (nbits >= 8) {
				nbits -= 8;
				out += String.fromCharCode((bits >> nbits) & 0xff);
			}
		}
		return out;
	}

	/* ---- crypto: getRandomValues and randomUUID, from getrandom */

	var INTEGER_VIEWS = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array',
			     'Uint16Array', 'Int32Array', 'Uint32Array'];
	var CRYPTO = hidden.fresh();

	function Crypto() {
		throw nodeError(TypeError, 'ERR_ILLEGAL_CONSTRUCTOR', 'Illegal constructor');
	}
	var crypto = Object.create(Crypto.prototype);
	defineProperty(crypto, CRYPTO, {value: true});

	function checkThis(self) {
		if (self === null || typeof self !== 'object' || self[CRYPTO] !== true)
			throw nodeError(TypeError, 'ERR_INVALID_THIS',
					'Value of "this" must be of type Crypto');
	}

	function getRandomValues(data) {
		checkThis(this);
		if (arguments.length === 0)
			throw nodeError(TypeError, 'ERR_MISSING_ARGS',
					"Failed to execute 'getRandomValues' on 'Crypto': 1 argument " +
					'required, but only 0 present.');
		if (Object(data) !== data || !isView(data) ||
		    INTEGER_VIEWS.indexOf(builtinClass(data)) < 0)
			throw domError('The data argument must be an integer-type TypedArray',
				       'TypeMismatchError');
		if (data.byteLength > 65536)
			throw domError('The requested length exceeds 65,536 bytes',
				       'QuotaExceededError');
		fill(data);
		return data;
	}

	var HEX = [];
	for (var h = 0; h < 256; h++)
		HEX[h] = (h < 16 ? '0' : '') + h.toString(16);

	/* A version 4 UUID (RFC 9562): 122 random bits. */
	function randomUUID() {
		checkThis(this);
		var b = fill(new Uint8Array(16));
		b[6] = (b[6] & 0x0f) | 0x40;
		b[8] = (b[8] & 0x3f) | 0x80;
		var s = '';
		for (var i = 0; i < 16; i++)
			s += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + HEX[b[i]];
		return s;
	}

	var CP = Crypto.prototype;
	define(CP, 'getRandomValues', getRandomValues);
	define(CP, 'randomUUID', randomUUID);
	defineProperty(CP, Symbol.toStringTag, {value: 'Crypto', configurable: true});

	/* ---- text encoding: what Duktape's TextEncoder and TextDecoder lack */

	var encode = TextEncoder.prototype.encode;

	/* encodeInto(src, dest): as much of src as fits in dest, never half a
	 * character; {read (UTF-16 units), written (bytes)}. */
	define(TextEncoder.prototype, 'encodeInto', function encodeInto(src, dest) {
		if (typeof src !== 'string')
			throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
					'The "src" argument must be of type string');
		if (Object(dest) !== dest || builtinClass(dest) !== 'Uint8Array')
			throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
					'The "dest" argument must be an instance of Uint8Array.');
		var read = 0, written = 0;
		while (read < src.length) {
			var c = src.charCodeAt(read), units = 1;
			if (c >= 0xd800 && c < 0xdc00 && read + 1 < src.length) {
				var d = src.charCodeAt(read + 1);
				if (d >= 0xdc00 && d < 0xe000)
					units = 2;
			}
			var bytes = call(encode, this, src.substr(read, units));
			if (written + bytes.length > dest.length)
				break;
			dest.set(bytes, written);
			written += bytes.length;
			read += units;
		}
		return {read: read, written: written};
	});

	/* TextDecoder: Duktape's decodes UTF-8 whatever label it is given.
	 * This one reads the label as WHATWG Encoding does, for the encodings
	 * Node has without ICU's tables: UTF-8 (through Duktape's decoder),
	 * UTF-16LE and UTF-16BE, and windows-1252, which Node 20 decodes as
	 * Latin-1 (each byte the code point of its value). Any other label is
	 * Node's RangeError. */
	var NativeDecoder = TextDecoder;
	var LABELS = Object.create(null);
	function labels(encoding, list) {
		for (var i = 0; i < list.length; i++)
			LABELS[list[i]] = encoding;
	}
	labels('utf-8', ['unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'utf-8', 'utf8',
			 'x-unicode20utf8']);
	labels('utf-16le', ['csunicode', 'iso-10646-ucs-2', 'ucs-2', 'unicode', 'unicodefeff',
			    'utf-16', 'utf-16le']);
	labels('utf-16be', ['unicodefffe', 'utf-16be']);
	labels('windows-1252', ['ansi_x3.4-1968', 'ascii', 'cp1252', 'cp819', 'csisolatin1',
				'ibm819', 'iso-8859-1', 'iso-ir-100', 'iso8859-1', 'iso88591',
				'iso_8859-1', 'iso_8859-1:1987', 'l1', 'latin1', 'us-ascii',
				'windows-1252', 'x-cp1252']);
	var CODER = hidden.fresh();

	function coder(self) {
		var c = self !== null && typeof self === 'object' ? self[CODER] : undefined;
		if (!c)
			throw nodeError(TypeError, 'ERR_INVALID_THIS',
					'Value of "this" must be of type TextDecoder');
		return c;
	}

	function TextDecoder_(label, options) {
		if (!(this instanceof TextDecoder_))
			throw new TypeError("Class constructor TextDecoder cannot be invoked without 'new'");
		var text = label === undefined ? 'utf-8' : String(label);
		var encoding = LABELS[text.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '').toLowerCase()];
		if (!encoding)
			throw nodeError(RangeError, 'ERR_ENCODING_NOT_SUPPORTED',
					'The "' + text + '" encoding is not supported');
		if (options === undefined || options === null)
			options = {};
		else if (typeof options !== 'object')
			throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
					'The "options" argument must be of type object. Received type ' +
					typeof options + ' (' + String(options) + ')');
		var c = {encoding: encoding, fatal: !!options.fatal, ignoreBOM: !!options.ignoreBOM,
			 native: null, pending: [], bomSeen: false};
		if (encoding === 'utf-8')
			c.native = new NativeDecoder('utf-8', {fatal: c.fatal, ignoreBOM: c.ignoreBOM});
		defineProperty(this, CODER, {value: c});
	}
	var TDP = TextDecoder_.prototype;
	['encoding', 'fatal', 'ignoreBOM'].forEach(function (k) {
		defineProperty(TDP, k, {get: function () { return coder(this)[k]; },
					enumerable: true, configurable: true});
	});
	defineProperty(TDP, Symbol.toStringTag, {value: 'TextDecoder', configurable: true});
	defineProperty(TextDecoder_, 'name', {value: 'TextDecoder', configurable: true});
	defineProperty(TextDecoder_, 'length', {value: 0, configurable: true});

	/* The bytes of a BufferSource as a Uint8Array over the same memory.
	 * Node words the error two ways: for UTF-8 (utf8) and for the rest. */
	function bytesOf(input, utf8) {
		if (input === undefined)
			return new Uint8Array(0);
		if (Object(input) === input) {
			var cls = builtinClass(input);
			if (cls === 'ArrayBuffer' && !isView(input))
				return new Uint8Array(input);
			if (isView(input))
				return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
		}
		throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', utf8 ?
				'The "list" argument must be an instance of SharedArrayBuffer, ' +
				'ArrayBuffer or ArrayBufferView.' :
				'The "input" argument must be an instance of ArrayBuffer, ' +
				'SharedArrayBuffer, or ArrayBufferView.');
	}

	function invalidData(c) {
		return nodeError(TypeError, 'ERR_ENCODING_INVALID_ENCODED_DATA',
				 'The encoded data was not valid for encoding ' + c.encoding);
	}

	/* UTF-16 with the bytes held over between streamed calls: an odd byte
	 * and a high surrogate waiting for its pair. */
	function decodeUtf16(c, bytes, stream) {
		var b = c.pending.concat(Array.prototype.slice.call(bytes)), out = '', i = 0;
		var big = c.encoding === 'utf-16be';
		while (i + 1 < b.length) {
			var u = big ? (b[i] << 8) | b[i + 1] : b[i] | (b[i + 1] << 8);
			if (u >= 0xd800 && u < 0xdc00) {
				if (i + 3 >= b.length) {
					if (stream)
						break;
					if (c.fatal)
						throw invalidData(c);
					out += '\ufffd';
					i += 2;
					continue;
				}
				var v = big ? (b[i + 2] << 8) | b[i + 3] : b[i + 2] | (b[i + 3] << 8);
				if (v >= 0xdc00 && v < 0xe000) {
					out += String.fromCharCode(u, v);
					i += 4;
					continue;
				}
			}
			if (u >= 0xd800 && u < 0xe000) {
				if (c.fatal)
					throw invalidData(c);
				out += '\ufffd';
			} else {
				out += String.fromCharCode(u);
			}
			i += 2;
		}
		c.pending = b.slice(i);
		if (!stream && c.pending.length) {
			c.pending = [];
			if (c.fatal)
				throw invalidData(c);
			out += '\ufffd';
		}
		return out;
	}

	define(TDP, 'decode', function decode(input, options) {
		var c = coder(this);
		var stream = options !== undefined && options !== null && !!options.stream;
		var bytes = bytesOf(input, !!c.native), out = '';
		if (c.native) {
			try {
				return c.native.decode(bytes, {stream: stream});
			} catch (e) {
				if (e instanceof TypeError && c.fatal && /decode failed/.test(e.message))
					throw invalidData(c);
				throw e;
			}
		}
		if (c.encoding === 'windows-1252') {
			for (var i = 0; i < bytes.length; i += 4096)
				out += String.fromCharCode.apply(null,
					Array.prototype.slice.call(bytes.subarray(i, i + 4096)));
		} else {
			out = decodeUtf16(c, bytes, stream);
		}
		/* The byte order mark is dropped once per stream, at its start. */
		if (!c.bomSeen && out.length) {
			c.bomSeen = true;
			if (!c.ignoreBOM && out.charCodeAt(0) === 0xfeff && c.encoding !== 'windows-1252')
				out = out.slice(1);
		}
		if (!stream)
			c.bomSeen = false;
		return out;
	});

	/* ---- performance: now() from the worker's start, and that start */

	var performance = global.performance;
	define(performance, 'now', function now_() { return now(); });
	defineProperty(performance.now, 'name', {value: 'now', configurable: true});
	defineProperty(performance, 'timeOrigin', {get: function () { return origin(); },
						   enumerable: true, configurable: true});
	define(performance, 'toJSON', function toJSON() {
		return {timeOrigin: origin()};
	});
	defineProperty(performance, Symbol.toStringTag, {value: 'Performance', configurable: true});

	defineGlobal('DOMException', DOMException, false);
	defineGlobal('structuredClone', structuredClone, true);
	defineGlobal('atob', atob, true);
	defineGlobal('btoa', btoa, true);
	defineGlobal('Crypto', Crypto, false);
	defineGlobal('TextDecoder', TextDecoder_, false);
	defineGlobal('crypto', crypto, true);
	return DOMException;
})
