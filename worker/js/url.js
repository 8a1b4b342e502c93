/*
 * url.js - URL and URLSearchParams as the WHATWG URL standard has them, as
 * Node 20 gives them to scripts.
 *
 * Runs once, in the forkserver's prepared engine. ES5 only. Evaluates to a
 * function install(global, hidden) that defines the two globals
 * (non-enumerable, like the built-ins). A URL's record and a
 * URLSearchParams's list live under hidden keys (hidden.fresh()), which no
 * script can name or list, so neither can be read or forged other than
 * through the API.
 *
 * The parser is the standard's basic URL parser, state by state, over the
 * input's code points (a lone surrogate reads as U+FFFD, as a USVString
 * has it). Hosts go through the host parser: IPv6, IPv4 in its decimal,
 * octal and hex forms, opaque hosts for schemes that are not special, and
 * domains through a reduced UTS 46 ToASCII (see domainToASCII for exactly
 * what of the mapping it applies).
 */
(function (global, hidden) {
	'use strict';
	var defineProperty = Object.defineProperty;
	var fromCharCode = String.fromCharCode;
	var ITERATOR = Symbol.iterator;
	var TO_STRING_TAG = Symbol.toStringTag;
	var CUSTOM = Symbol['for']('nodejs.util.inspect.custom');

	/* A URL object's record, a URLSearchParams's state, an iterator's. */
	var RECORD = hidden.fresh(), PARAMS = hidden.fresh(), ITER = hidden.fresh();

	var EOF = -1;
	var SPECIAL = {'ftp:': 21, 'file:': null, 'http:': 80, 'https:': 443, 'ws:': 80,
		       'wss:': 443};

	function isSpecialScheme(s) { return Object.prototype.hasOwnProperty.call(SPECIAL, s + ':'); }
	function defaultPort(s) {
		var p = isSpecialScheme(s) ? SPECIAL[s + ':'] : null;
		return p === undefined ? null : p;
	}

	/* ---- code points and UTF-8 */

	/* The code points of s, a lone surrogate as U+FFFD. */
	function codePoints(s) {
		var out = [];
		for (var i = 0; i < s.length; i++) {
			var c = s.charCodeAt(i);
			if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
				var d = s.charCodeAt(i + 1);
				if (d >= 0xdc00 && d <= 0xdfff) {
					out.push(0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00));
					i++;
					continue;
				}
			}
			out.push(c >= 0xd800 && c <= 0xdfff ? 0xfffd : c);
		}
		return out;
	}

	function fromCodePoint(c) {
		if (c < 0x10000)
			return fromCharCode(c);
		c -= 0x10000;
		return fromCharCode(0xd800 + (c >> 10), 0xdc00 + (c & 0x3ff));
	}

	function stringOf(cps, from, to) {
		var s = '';
		for (var i = from || 0, n = to === undefined ? cps.length : to; i < n; i++)
			s += fromCodePoint(cps[i]);
		return s;
	}

	/* s as a USVString: lone surrogates replaced by U+FFFD. */
	function wellFormed(s) {
		if (!/[\ud800-\udfff]/.test(s))
			return s;
		return stringOf(codePoints(s));
	}

	function utf8(c) {
		if (c < 0x80)
			return [c];
		if (c < 0x800)
			return [0xc0 | (c >> 6), 0x80 | (c & 63)];
		if (c < 0x10000)
			return [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63)];
		return [0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63),
			0x80 | (c & 63)];
	}

	/* UTF-8 decode without BOM: an invalid sequence gives U+FFFD, as the
	 * Encoding standard decodes (maximal subparts). */
	function utf8Decode(bytes) {
		var s = '', i = 0, n = bytes.length;
		while (i < n) {
			var b = bytes[i++];
			if (b < 0x80) {
				s += fromCharCode(b);
				continue;
			}
			var need, cp, lower = 0x80, upper = 0xbf;
			if (b >= 0xc2 && b <= 0xdf) {
				need = 1;
				cp = b & 0x1f;
			} else if (b >= 0xe0 && b <= 0xef) {
				if (b === 0xe0)
					lower = 0xa0;
				if (b === 0xed)
					upper = 0x9f;
				need = 2;
				cp = b & 0xf;
			} else if (b >= 0xf0 && b <= 0xf4) {
				if (b === 0xf0)
					lower = 0x90;
				if (b === 0xf4)
					upper = 0x8f;
				need = 3;
				cp = b & 7;
			} else {
				s += '\ufffd';
				continue;
			}
			var ok = true;
			for (var k = 0; k < need; k++) {
				var c = bytes[i];
				if (i >= n || c < lower || c > upper) {
					ok = false;
					break;
				}
				lower = 0x80;
				upper = 0xbf;
				cp = (cp << 6) | (c & 63);
				i++;
			}
			s += ok ? fromCodePoint(cp) : '\ufffd';
		}
		return s;
	}

	/* ---- percent-encoding */

	var HEX = '0123456789ABCDEF';

	function isC0Control(c) { return c >= 0 && c <= 0x1f; }

	/* The percent-encode sets, each a test of one code point. */
	function inC0ControlSet(c) { return isC0Control(c) || c > 0x7e; }
	function inFragmentSet(c) {
		return inC0ControlSet(c) || c === 0x20 || c === 0x22 || c === 0x3c || c === 0x3e ||
		       c === 0x60;
	}
	function inQuerySet(c) {
		return inC0ControlSet(c) || c === 0x20 || c === 0x22 || c === 0x23 || c === 0x3c ||
		       c === 0x3e;
	}
	function inSpecialQuerySet(c) { return inQuerySet(c) || c === 0x27; }
	function inPathSet(c) {
		return inQuerySet(c) || c === 0x3f || c === 0x60 || c === 0x7b || c === 0x7d;
	}
	function inUserinfoSet(c) {
		return inPathSet(c) || c === 0x2f || c === 0x3a || c === 0x3b || c === 0x3d ||
		       c === 0x40 || (c >= 0x5b && c <= 0x5e) || c === 0x7c;
	}
	function inComponentSet(c) {
		return inUserinfoSet(c) || (c >= 0x24 && c <= 0x26) || c === 0x2b || c === 0x2c;
	}
	function inFormSet(c) {
		return inComponentSet(c) || c === 0x21 || (c >= 0x27 && c <= 0x29) || c === 0x7e;
	}

	function percentByte(b) { return '%' + HEX.charAt(b >> 4) + HEX.charAt(b & 15); }

	function percentEncode(c) {
		var bytes = utf8(c), s = '';
		for (var i = 0; i < bytes.length; i++)
			s += percentByte(bytes[i]);
		return s;
	}

	function hex4(c) { return '\\u' + ('000' + c.toString(16)).slice(-4); }

	/*
	 * A percent-encode set, made once from its test: what each ASCII code
	 * point encodes to, and a pattern of the code units a string must not
	 * hold as they are (every one beyond ASCII, since each set holds all of
	 * them), so that a string with none is its own encoding.
	 */
	function makeSet(inSet) {
		var table = [], cls = '';
		for (var c = 0; c < 0x80; c++) {
			table.push(inSet(c) ? percentByte(c) : fromCharCode(c));
			if (inSet(c))
				cls += hex4(c);
		}
		cls += '\\u0080-\\uffff';
		return {table: table, any: new RegExp('[' + cls + ']'),
			all: new RegExp('[\\ud800-\\udbff][\\udc00-\\udfff]|[' + cls + ']', 'g')};
	}

	var C0_CONTROL_SET = makeSet(inC0ControlSet), FRAGMENT_SET = makeSet(inFragmentSet);
	var QUERY_SET = makeSet(inQuerySet), SPECIAL_QUERY_SET = makeSet(inSpecialQuerySet);
	var PATH_SET = makeSet(inPathSet), USERINFO_SET = makeSet(inUserinfoSet);
	var FORM_SET = makeSet(inFormSet);

	/* UTF-8 percent-encodes code point c when it is in the set. */
	function encodeCodePoint(c, set) {
		return c < 0x80 ? set.table[c] : percentEncode(c);
	}

	/* s, its code points in the set UTF-8 percent-encoded (a lone surrogate
	 * as U+FFFD); spaceAsPlus: a space as '+' (the form encoding). */
	function encodeString(s, set, spaceAsPlus) {
		if (!set.any.test(s))
			return s;
		return s.replace(set.all, function (m) {
			if (m.length === 2)
				return percentEncode(codePoints(m)[0]);
			var c = m.charCodeAt(0);
			if (spaceAsPlus && c === 0x20)
				return '+';
			if (c < 0x80)
				return set.table[c];
			return percentEncode(c >= 0xd800 && c <= 0xdfff ? 0xfffd : c);
		});
	}

	function hexValue(c) {
		if (c >= 0x30 && c <= 0x39)
			return c - 0x30;
		if (c >= 0x41 && c <= 0x46)
			return c - 0x37;
		if (c >= 0x61 && c <= 0x66)
			return c - 0x57;
		return -1;
	}

	/* Percent-decodes s (its UTF-8 bytes) to bytes. */
	function percentDecode(s) {
		var cps = codePoints(s), bytes = [];
		for (var i = 0; i < cps.length; i++) {
			var c = cps[i];
			if (c === 0x25 && i + 2 < cps.length && hexValue(cps[i + 1]) >= 0 &&
			    hexValue(cps[i + 2]) >= 0) {
				bytes.push(hexValue(cps[i + 1]) * 16 + hexValue(cps[i + 2]));
				i += 2;
			} else {
				var u = utf8(c);
				for (var k = 0; k < u.length; k++)
					bytes.push(u[k]);
			}
		}
		return bytes;
	}

	/* ---- punycode (RFC 3492) */

	var BASE = 36, TMIN = 1, TMAX = 26, SKEW = 38, DAMP = 700, INITIAL_BIAS = 72,
	    INITIAL_N = 128;

	function adapt(delta, points, first) {
		delta = first ? Math.floor(delta / DAMP) : delta >> 1;
		delta += Math.floor(delta / points);
		var k = 0;
		while (delta > ((BASE - TMIN) * TMAX) >> 1) {
			delta = Math.floor(delta / (BASE - TMIN));
			k += BASE;
		}
		return k + Math.floor(((BASE - TMIN + 1) * delta) / (delta + SKEW));
	}

	function digitChar(d) { return fromCharCode(d < 26 ? 0x61 + d : 0x16 + d); }

	/* The punycode of a label's code points. */
	function punyEncode(cps) {
		var out = '', n = INITIAL_N, delta = 0, bias = INITIAL_BIAS, i;
		for (i = 0; i < cps.length; i++)
			if (cps[i] < 0x80)
				out += fromCharCode(cps[i]);
		var basic = out.length, handled = basic;
		if (basic)
			out += '-';
		while (handled < cps.length) {
			var m = 0x10ffff + 1;
			for (i = 0; i < cps.length; i++)
				if (cps[i] >= n && cps[i] < m)
					m = cps[i];
			delta += (m - n) * (handled + 1);
			n = m;
			for (i = 0; i < cps.length; i++) {
				if (cps[i] < n)
					delta++;
				if (cps[i] === n) {
					var q = delta;
					for (var k = BASE;; k += BASE) {
						var t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
						if (q < t)
							break;
						out += digitChar(t + ((q - t) % (BASE - t)));
						q = Math.floor((q - t) / (BASE - t));
					}
					out += digitChar(q);
					bias = adapt(delta, handled + 1, handled === basic);
					delta = 0;
					handled++;
				}
			}
			delta++;
			n++;
		}
		return out;
	}

	/* The code points punycode s stands for, or null when it is not valid
	 * punycode. */
	function punyDecode(s) {
		var out = [], n = INITIAL_N, i = 0, bias = INITIAL_BIAS;
		var b = s.lastIndexOf('-'), j;
		if (b < 0)
			b = 0;
		for (j = 0; j < b; j++) {
			if (s.charCodeAt(j) >= 0x80)
				return null;
			out.push(s.charCodeAt(j));
		}
		for (j = b > 0 ? b + 1 : 0; j < s.length;) {
			var old = i, w = 1;
			for (var k = BASE;; k += BASE) {
				if (j >= s.length)
					return null;
				var c = s.charCodeAt(j++);
				var d = c >= 0x30 && c <= 0x39 ? c - 0x16
					: c >= 0x41 && c <= 0x5a ? c - 0x41
					: c >= 0x61 && c <= 0x7a ? c - 0x61 : -1;
				if (d < 0)
					return null;
				i += d * w;
				if (i > 0x7fffffff)
					return null;
				var t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
				if (d < t)
					break;
				w *= BASE - t;
			}
			bias = adapt(i - old, out.length + 1, old === 0);
			n += Math.floor(i / (out.length + 1));
			i %= out.length + 1;
			if (n > 0x10ffff)
				return null;
			out.splice(i, 0, n);
			i++;
		}
		return out;
	}

	/* ---- hosts */

	/*
	 * UTS 46's mapping, reduced: ASCII upper case lowered, other letters
	 * through toLowerCase, the full-width ASCII forms (U+FF01..FF5E) as
	 * ASCII, the ideographic full stops (U+3002, U+FF0E, U+FF61) as '.', the
	 * no-break and other wide spaces as U+0020 (which the host then refuses),
	 * U+1E9E as "ss", and the ignored code points (soft hyphen, combining
	 * grapheme joiner, Mongolian variation selectors, zero width space,
	 * word joiner, variation selectors, the BOM) dropped. Missing: the
	 * rest of the NFKC compatibility mappings (ligatures, circled letters,
	 * Roman numerals, fractions) and NFC composition of combining
	 * sequences. Returns the mapped code points, or null for a code point
	 * UTS 46 disallows among those checked (controls, U+FFFD, noncharacters,
	 * ZWJ and ZWNJ, which CheckJoiners refuses outside the scripts that use
	 * them, and U+2024 and the other dot leaders).
	 */
	function idnaMap(cps) {
		var out = [];
		for (var i = 0; i < cps.length; i++) {
			var c = cps[i];
			if (c < 0x80) {
				out.push(c >= 0x41 && c <= 0x5a ? c + 0x20 : c);
				continue;
			}
			if (c <= 0x9f || c === 0xfffd || (c & 0xfffe) === 0xfffe ||
			    (c >= 0xfdd0 && c <= 0xfdef) || c === 0x200c || c === 0x200d ||
			    (c >= 0x2024 && c <= 0x2026) || (c >= 0xd800 && c <= 0xdfff))
				return null;
			if (c === 0xad || c === 0x34f || (c >= 0x180b && c <= 0x180d) || c === 0x180f ||
			    c === 0x200b || c === 0x2060 || c === 0x2064 || (c >= 0xfe00 && c <= 0xfe0f) ||
			    c === 0xfeff || (c >= 0x1bca0 && c <= 0x1bca3) ||
			    (c >= 0xe0100 && c <= 0xe01ef))
				continue;
			if (c === 0xa0 || (c >= 0x2000 && c <= 0x200a) || c === 0x202f || c === 0x205f ||
			    c === 0x3000) {
				out.push(0x20);
				continue;
			}
			if (c === 0x3002 || c === 0xff0e || c === 0xff61) {
				out.push(0x2e);
				continue;
			}
			if (c >= 0xff01 && c <= 0xff5e) {
				c -= 0xfee0;
				out.push(c >= 0x41 && c <= 0x5a ? c + 0x20 : c);
				continue;
			}
			if (c === 0x1e9e) {
				out.push(0x73, 0x73);
				continue;
			}
			var lower = codePoints(fromCodePoint(c).toLowerCase());
			for (var k = 0; k < lower.length; k++)
				out.push(lower[k]);
		}
		return out;
	}

	/* A label UTS 46's validity criteria refuse, among those checked: one
	 * beginning with a combining mark (U+0300..036F), or holding a code point
	 * the mapping changes or disallows (for a label decoded from punycode). */
	function badLabel(cps) {
		if (cps.length && cps[0] >= 0x300 && cps[0] <= 0x36f)
			return true;
		var mapped = idnaMap(cps);
		if (!mapped || mapped.length !== cps.length)
			return true;
		for (var i = 0; i < cps.length; i++)
			if (mapped[i] !== cps[i] || cps[i] === 0x2e)
				return true;
		return false;
	}

	/* UTS 46 ToASCII as the URL standard asks (CheckHyphens false,
	 * CheckBidi and CheckJoiners true, UseSTD3ASCIIRules false, not
	 * transitional, no DNS length check): the ASCII domain, or null. */
	function domainToASCII(domain) {
		var mapped = idnaMap(codePoints(domain));
		if (!mapped)
			return null;
		var labels = [], label = [];
		for (var i = 0; i <= mapped.length; i++) {
			if (i === mapped.length || mapped[i] === 0x2e) {
				labels.push(label);
				label = [];
			} else {
				label.push(mapped[i]);
			}
		}
		var out = [];
		for (i = 0; i < labels.length; i++) {
			var cps = labels[i], s = stringOf(cps), ascii = true;
			for (var k = 0; k < cps.length; k++)
				if (cps[k] >= 0x80)
					ascii = false;
			if (ascii && s.slice(0, 4) === 'xn--') {
				var decoded = punyDecode(s.slice(4));
				if (!decoded || !decoded.length || badLabel(decoded))
					return null;
				var nonAscii = false;
				for (k = 0; k < decoded.length; k++)
					if (decoded[k] >= 0x80)
						nonAscii = true;
				if (!nonAscii)
					return null;
				out.push(s);
			} else if (ascii) {
				out.push(s);
			} else if (s.slice(0, 4) === 'xn--') {
				/* punycode holds ASCII only */
				return null;
			} else {
				if (badLabel(cps))
					return null;
				out.push('xn--' + punyEncode(cps));
			}
		}
		var result = out.join('.');
		return result === '' ? null : result;
	}

	function isForbiddenHost(c) {
		return c === 0 || c === 9 || c === 0xa || c === 0xd || c === 0x20 || c === 0x23 ||
		       c === 0x2f || c === 0x3a || c === 0x3c || c === 0x3e || c === 0x3f ||
		       c === 0x40 || c === 0x5b || c === 0x5c || c === 0x5d || c === 0x5e ||
		       c === 0x7c;
	}

	function isForbiddenDomain(c) {
		return isForbiddenHost(c) || isC0Control(c) || c === 0x25 || c === 0x7f;
	}

	/* An IPv4 number part: its value, or NaN. */
	function ipv4Number(s) {
		if (s === '')
			return NaN;
		var radix = 10;
		if (s.length >= 2 && (s.slice(0, 2) === '0x' || s.slice(0, 2) === '0X')) {
			s = s.slice(2);
			radix = 16;
		} else if (s.length >= 2 && s.charAt(0) === '0') {
			s = s.slice(1);
			radix = 8;
		}
		if (s === '')
			return 0;
		var re = radix === 10 ? /^[0-9]+$/ : radix === 8 ? /^[0-7]+$/ : /^[0-9a-fA-F]+$/;
		if (!re.test(s))
			return NaN;
		var n = 0;
		for (var i = 0; i < s.length; i++)
			n = n * radix + hexValue(s.charCodeAt(i));
		return n;
	}

	function endsInNumber(s) {
		var parts = s.split('.');
		if (parts[parts.length - 1] === '') {
			if (parts.length === 1)
				return false;
			parts.pop();
		}
		var last = parts[parts.length - 1];
		if (last !== '' && /^[0-9]+$/.test(last))
			return true;
		return ipv4Number(last) === ipv4Number(last);
	}

	/* The IPv4 address s gives, as a number, or null. */
	function parseIPv4(s) {
		var parts = s.split('.');
		if (parts[parts.length - 1] === '' && parts.length > 1)
			parts.pop();
		if (parts.length > 4)
			return null;
		var nums = [];
		for (var i = 0; i < parts.length; i++) {
			var n = ipv4Number(parts[i]);
			if (n !== n)
				return null;
			nums.push(n);
		}
		for (i = 0; i < nums.length - 1; i++)
			if (nums[i] > 255)
				return null;
		var last = nums[nums.length - 1];
		if (last >= Math.pow(256, 5 - nums.length))
			return null;
		var ipv4 = last;
		for (i = 0; i < nums.length - 1; i++)
			ipv4 += nums[i] * Math.pow(256, 3 - i);
		return ipv4;
	}

	function serializeIPv4(n) {
		var out = [];
		for (var i = 0; i < 4; i++) {
			out.unshift(String(n % 256));
			n = Math.floor(n / 256);
		}
		return out.join('.');
	}

	function isDigit(c) { return c >= 0x30 && c <= 0x39; }

	/* The eight pieces of the IPv6 address in cps, or null. */
	function parseIPv6(cps) {
		var addr = [0, 0, 0, 0, 0, 0, 0, 0], piece = 0, compress = null, p = 0;
		var n = cps.length;
		if (cps[p] === 0x3a) {
			if (cps[p + 1] !== 0x3a)
				return null;
			p += 2;
			compress = ++piece;
		}
		while (p < n) {
			if (piece === 8)
				return null;
			if (cps[p] === 0x3a) {
				if (compress !== null)
					return null;
				p++;
				compress = ++piece;
				continue;
			}
			var value = 0, length = 0;
			while (length < 4 && p < n && hexValue(cps[p]) >= 0) {
				value = value * 16 + hexValue(cps[p]);
				p++;
				length++;
			}
			if (cps[p] === 0x2e) {
				if (length === 0)
					return null;
				p -= length;
				if (piece > 6)
					return null;
				var seen = 0;
				while (p < n) {
					var v4 = null;
					if (seen > 0) {
						if (cps[p] === 0x2e && seen < 4)
							p++;
						else
							return null;
					}
					if (p >= n || !isDigit(cps[p]))
						return null;
					while (p < n && isDigit(cps[p])) {
						var d = cps[p] - 0x30;
						if (v4 === null)
							v4 = d;
						else if (v4 === 0)
							return null;
						else
							v4 = v4 * 10 + d;
						if (v4 > 255)
							return null;
						p++;
					}
					addr[piece] = addr[piece] * 0x100 + v4;
					seen++;
					if (seen === 2 || seen === 4)
						piece++;
				}
				if (seen !== 4)
					return null;
				break;
			} else if (cps[p] === 0x3a) {
				p++;
				if (p >= n)
					return null;
			} else if (p < n) {
				return null;
			}
			addr[piece] = value;
			piece++;
		}
		if (compress !== null) {
			var swaps = piece - compress;
			piece = 7;
			while (piece !== 0 && swaps > 0) {
				var t = addr[piece];
				addr[piece] = addr[compress + swaps - 1];
				addr[compress + swaps - 1] = t;
				piece--;
				swaps--;
			}
		} else if (piece !== 8) {
			return null;
		}
		return addr;
	}

	function serializeIPv6(addr) {
		var best = -1, bestLen = 1, i;
		for (i = 0; i < 8; i++) {
			if (addr[i] !== 0)
				continue;
			var j = i;
			while (j < 8 && addr[j] === 0)
				j++;
			if (j - i > bestLen) {
				best = i;
				bestLen = j - i;
			}
			i = j;
		}
		var out = '', ignore0 = false;
		for (i = 0; i < 8; i++) {
			if (ignore0 && addr[i] === 0)
				continue;
			ignore0 = false;
			if (best === i) {
				out += i === 0 ? '::' : ':';
				ignore0 = true;
				continue;
			}
			out += addr[i].toString(16);
			if (i !== 7)
				out += ':';
		}
		return out;
	}

	/* The host parser: the serialized host, or null on failure. */
	function parseHost(input, notSpecial) {
		var cps = codePoints(input), i;
		if (cps[0] === 0x5b) {
			if (cps[cps.length - 1] !== 0x5d)
				return null;
			var addr = parseIPv6(cps.slice(1, cps.length - 1));
			return addr ? '[' + serializeIPv6(addr) + ']' : null;
		}
		if (notSpecial) {
			var out = '';
			for (i = 0; i < cps.length; i++) {
				if (isForbiddenHost(cps[i]))
					return null;
				out += encodeCodePoint(cps[i], C0_CONTROL_SET);
			}
			return out;
		}
		var domain = utf8Decode(percentDecode(input));
		var ascii = domainToASCII(domain);
		if (ascii === null)
			return null;
		for (i = 0; i < ascii.length; i++)
			if (isForbiddenDomain(ascii.charCodeAt(i)))
				return null;
		if (endsInNumber(ascii)) {
			var v4 = parseIPv4(ascii);
			return v4 === null ? null : serializeIPv4(v4);
		}
		return ascii;
	}

	/* ---- the basic URL parser */

	var SCHEME_START = 1, SCHEME = 2, NO_SCHEME = 3, SPECIAL_RELATIVE_OR_AUTHORITY = 4,
	    PATH_OR_AUTHORITY = 5, RELATIVE = 6, RELATIVE_SLASH = 7,
	    SPECIAL_AUTHORITY_SLASHES = 8, SPECIAL_AUTHORITY_IGNORE_SLASHES = 9, AUTHORITY = 10,
	    HOST = 11, HOSTNAME = 12, PORT = 13, FILE = 14, FILE_SLASH = 15, FILE_HOST = 16,
	    PATH_START = 17, PATH = 18, OPAQUE_PATH = 19, QUERY = 20, FRAGMENT = 21;

	function newRecord() {
		return {scheme: '', username: '', password: '', host: null, port: null, path: [],
			query: null, fragment: null};
	}

	function isAlpha(c) { return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a); }
	function lowerCode(c) { return c >= 0x41 && c <= 0x5a ? c + 0x20 : c; }

	function isWindowsDriveLetter(s, normalized) {
		return s.length === 2 && isAlpha(s.charCodeAt(0)) &&
		       (s.charAt(1) === ':' || (!normalized && s.charAt(1) === '|'));
	}

	/* cps from p on start with a Windows drive letter. */
	function startsWithDriveLetter(cps, p) {
		if (cps.length - p < 2 || !isAlpha(cps[p]) || (cps[p + 1] !== 0x3a && cps[p + 1] !== 0x7c))
			return false;
		if (cps.length - p === 2)
			return true;
		var c = cps[p + 2];
		return c === 0x2f || c === 0x5c || c === 0x3f || c === 0x23;
	}

	function isSingleDot(s) { return s === '.' || s.toLowerCase() === '%2e'; }
	function isDoubleDot(s) {
		s = s.toLowerCase();
		return s === '..' || s === '.%2e' || s === '%2e.' || s === '%2e%2e';
	}

	/* As Node (ada) does, a file URL's only segment is kept when it begins
	 * with a normalized drive letter (the standard: when it is one), so
	 * "C:x" stays too; the file slash state takes a base's first segment
	 * on the same test. */
	function shortenPath(url) {
		var path = url.path;
		if (url.scheme === 'file' && path.length === 1 && /^[A-Za-z]:/.test(path[0]))
			return;
		path.pop();
	}

	function hasCredentials(url) { return url.username !== '' || url.password !== ''; }

	/*
	 * The common case at a fraction of the parser's cost: an absolute URL of
	 * a special scheme other than file, with an ASCII host that is neither
	 * an IPv4 address nor punycode, no credentials, and nothing in its path,
	 * query or fragment that needs encoding, nor dot segments. The
	 * character classes come from the percent-encode sets, so what matches
	 * is what the parser would give; anything else returns null and goes to
	 * the parser.
	 */
	function asciiClass(keep) {
		var cls = '';
		for (var c = 0x21; c < 0x7f; c++)
			if (keep(c))
				cls += hex4(c);
		return '[' + cls + ']*';
	}
	var SIMPLE = new RegExp('^(https?|wss?|ftp):\\/\\/([A-Za-z0-9_-]+(?:\\.[A-Za-z0-9_-]+)*)' +
				'(?::([0-9]{1,5}))?((?:\\/' + asciiClass(function (c) {
					return !inPathSet(c) && c !== 0x2f && c !== 0x5c;
				}) + ')*)(?:\\?(' + asciiClass(function (c) {
					return !inSpecialQuerySet(c);
				}) + '))?(?:#(' + asciiClass(function (c) {
					return !inFragmentSet(c);
				}) + '))?$', 'i');

	function parseSimple(input) {
		var m = SIMPLE.exec(input);
		if (!m)
			return null;
		var host = m[2].toLowerCase();
		if (/(^|\.)xn--/.test(host) || endsInNumber(host))
			return null;
		var url = newRecord();
		url.scheme = m[1].toLowerCase();
		url.host = host;
		if (m[3] !== undefined && m[3] !== '') {
			var port = Number(m[3]);
			if (port > 65535)
				return null;
			url.port = port === defaultPort(url.scheme) ? null : port;
		}
		url.path = m[4] ? m[4].slice(1).split('/') : [''];
		for (var i = 0; i < url.path.length; i++)
			if (isSingleDot(url.path[i]) || isDoubleDot(url.path[i]))
				return null;
		if (m[5] !== undefined)
			url.query = m[5];
		if (m[6] !== undefined)
			url.fragment = m[6];
		return url;
	}

	/*
	 * The basic URL parser: parses input against base (a record or null).
	 * Without url it returns a new record, or null on failure; with url and
	 * override (a state) it changes url in place as the setters ask, and
	 * returns null where the standard returns failure.
	 */
	function parse(input, base, url, override) {
		var c, i;
		if (!url) {
			url = parseSimple(input);
			if (url)
				return url;
			url = newRecord();
			input = input.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
		}
		input = input.replace(/[\t\n\r]/g, '');
		var cps = codePoints(input), n = cps.length;
		var state = override || SCHEME_START, buffer = '', p = 0;
		var atSeen = false, insideBrackets = false, passwordSeen = false;
		var special = isSpecialScheme(url.scheme);
		for (;; p++) {
			c = p < n ? cps[p] : EOF;
			switch (state) {
			case SCHEME_START:
				if (isAlpha(c)) {
					buffer += fromCharCode(lowerCode(c));
					state = SCHEME;
				} else if (!override) {
					state = NO_SCHEME;
					p--;
				} else {
					return null;
				}
				break;
			case SCHEME:
				if (c !== EOF && (isAlpha(c) || isDigit(c) || c === 0x2b || c === 0x2d ||
						  c === 0x2e)) {
					buffer += fromCharCode(lowerCode(c));
				} else if (c === 0x3a) {
					if (override) {
						if (isSpecialScheme(url.scheme) !== isSpecialScheme(buffer))
							return url;
						if ((hasCredentials(url) || url.port !== null) && buffer === 'file')
							return url;
						if (url.scheme === 'file' && url.host === '')
							return url;
					}
					url.scheme = buffer;
					special = isSpecialScheme(buffer);
					if (override) {
						if (url.port === defaultPort(url.scheme))
							url.port = null;
						return url;
					}
					buffer = '';
					if (url.scheme === 'file') {
						state = FILE;
					} else if (special && base && base.scheme === url.scheme) {
						state = SPECIAL_RELATIVE_OR_AUTHORITY;
					} else if (special) {
						state = SPECIAL_AUTHORITY_SLASHES;
					} else if (cps[p + 1] === 0x2f) {
						state = PATH_OR_AUTHORITY;
						p++;
					} else {
						url.path = '';
						state = OPAQUE_PATH;
					}
				} else if (!override) {
					buffer = '';
					state = NO_SCHEME;
					p = -1;
				} else {
					return null;
				}
				break;
			case NO_SCHEME:
				if (!base || (typeof base.path === 'string' && c !== 0x23))
					return null;
				if (typeof base.path === 'string') {
					url.scheme = base.scheme;
					url.path = base.path;
					url.query = base.query;
					url.fragment = '';
					state = FRAGMENT;
				} else {
					state = base.scheme !== 'file' ? RELATIVE : FILE;
					p--;
				}
				special = isSpecialScheme(url.scheme);
				break;
			case SPECIAL_RELATIVE_OR_AUTHORITY:
				if (c === 0x2f && cps[p + 1] === 0x2f) {
					state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
					p++;
				} else {
					state = RELATIVE;
					p--;
				}
				break;
			case PATH_OR_AUTHORITY:
				if (c === 0x2f) {
					state = AUTHORITY;
				} else {
					state = PATH;
					p--;
				}
				break;
			case RELATIVE:
				url.scheme = base.scheme;
				special = isSpecialScheme(url.scheme);
				if (c === 0x2f || (special && c === 0x5c)) {
					state = RELATIVE_SLASH;
				} else {
					url.username = base.username;
					url.password = base.password;
					url.host = base.host;
					url.port = base.port;
					url.path = base.path.slice();
					url.query = base.query;
					if (c === 0x3f) {
						url.query = '';
						state = QUERY;
					} else if (c === 0x23) {
						url.fragment = '';
						state = FRAGMENT;
					} else if (c !== EOF) {
						url.query = null;
						shortenPath(url);
						state = PATH;
						p--;
					}
				}
				break;
			case RELATIVE_SLASH:
				if (special && (c === 0x2f || c === 0x5c)) {
					state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
				} else if (c === 0x2f) {
					state = AUTHORITY;
				} else {
					url.username = base.username;
					url.password = base.password;
					url.host = base.host;
					url.port = base.port;
					state = PATH;
					p--;
				}
				break;
			case SPECIAL_AUTHORITY_SLASHES:
				if (c === 0x2f && cps[p + 1] === 0x2f) {
					state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
					p++;
				} else {
					state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
					p--;
				}
				break;
			case SPECIAL_AUTHORITY_IGNORE_SLASHES:
				if (c !== 0x2f && c !== 0x5c) {
					state = AUTHORITY;
					p--;
				}
				break;
			case AUTHORITY:
				if (c === 0x40) {
					if (atSeen)
						buffer = '%40' + buffer;
					atSeen = true;
					var bcps = codePoints(buffer);
					for (i = 0; i < bcps.length; i++) {
						if (bcps[i] === 0x3a && !passwordSeen) {
							passwordSeen = true;
							continue;
						}
						var enc = encodeCodePoint(bcps[i], USERINFO_SET);
						if (passwordSeen)
							url.password += enc;
						else
							url.username += enc;
					}
					buffer = '';
				} else if (c === EOF || c === 0x2f || c === 0x3f || c === 0x23 ||
					   (special && c === 0x5c)) {
					if (atSeen && buffer === '')
						return null;
					p -= codePoints(buffer).length + 1;
					buffer = '';
					state = HOST;
				} else {
					buffer += fromCodePoint(c);
				}
				break;
			case HOST:
			case HOSTNAME:
				if (override && url.scheme === 'file') {
					p--;
					state = FILE_HOST;
				} else if (c === 0x3a && !insideBrackets) {
					if (buffer === '')
						return null;
					if (override === HOSTNAME)
						return null;
					var host = parseHost(buffer, !special);
					if (host === null)
						return null;
					url.host = host;
					buffer = '';
					state = PORT;
				} else if (c === EOF || c === 0x2f || c === 0x3f || c === 0x23 ||
					   (special && c === 0x5c)) {
					p--;
					if (special && buffer === '')
						return null;
					if (override && buffer === '' && (hasCredentials(url) || url.port !== null))
						return null;
					host = parseHost(buffer, !special);
					if (host === null)
						return null;
					url.host = host;
					buffer = '';
					state = PATH_START;
					if (override)
						return url;
				} else {
					if (c === 0x5b)
						insideBrackets = true;
					if (c === 0x5d)
						insideBrackets = false;
					buffer += fromCodePoint(c);
				}
				break;
			case PORT:
				if (isDigit(c)) {
					buffer += fromCharCode(c);
				} else if (c === EOF || c === 0x2f || c === 0x3f || c === 0x23 ||
					   (special && c === 0x5c) || override) {
					if (buffer !== '') {
						var port = Number(buffer);
						if (port > 65535)
							return null;
						url.port = port === defaultPort(url.scheme) ? null : port;
						buffer = '';
						if (override)
							return url;
					}
					if (override)
						return null;
					state = PATH_START;
					p--;
				} else {
					return null;
				}
				break;
			case FILE:
				url.scheme = 'file';
				special = true;
				url.host = '';
				if (c === 0x2f || c === 0x5c) {
					state = FILE_SLASH;
				} else if (base && base.scheme === 'file') {
					url.host = base.host;
					url.path = base.path.slice();
					url.query = base.query;
					if (c === 0x3f) {
						url.query = '';
						state = QUERY;
					} else if (c === 0x23) {
						url.fragment = '';
						state = FRAGMENT;
					} else if (c !== EOF) {
						url.query = null;
						if (!startsWithDriveLetter(cps, p))
							shortenPath(url);
						else
							url.path = [];
						state = PATH;
						p--;
					}
				} else {
					state = PATH;
					p--;
				}
				break;
			case FILE_SLASH:
				if (c === 0x2f || c === 0x5c) {
					state = FILE_HOST;
				} else {
					if (base && base.scheme === 'file') {
						url.host = base.host;
						/* Node's test, as in shortenPath */
						if (!startsWithDriveLetter(cps, p) && base.path.length &&
						    /^[A-Za-z]:/.test(base.path[0]))
							url.path.push(base.path[0]);
					}
					state = PATH;
					p--;
				}
				break;
			case FILE_HOST:
				if (c === EOF || c === 0x2f || c === 0x5c || c === 0x3f || c === 0x23) {
					p--;
					if (!override && isWindowsDriveLetter(buffer, false)) {
						state = PATH;
					} else if (buffer === '') {
						url.host = '';
						if (override)
							return url;
						state = PATH_START;
					} else {
						host = parseHost(buffer, !special);
						if (host === null)
							return null;
						if (host === 'localhost')
							host = '';
						url.host = host;
						if (override)
							return url;
						buffer = '';
						state = PATH_START;
					}
				} else {
					buffer += fromCodePoint(c);
				}
				break;
			case PATH_START:
				if (special) {
					state = PATH;
					if (c !== 0x2f && c !== 0x5c)
						p--;
				} else if (!override && c === 0x3f) {
					url.query = '';
					state = QUERY;
				} else if (!override && c === 0x23) {
					url.fragment = '';
					state = FRAGMENT;
				} else if (c !== EOF) {
					state = PATH;
					if (c !== 0x2f)
						p--;
				} else if (override && url.host === null) {
					url.path.push('');
				}
				break;
			case PATH:
				if (c === EOF || c === 0x2f || (special && c === 0x5c) ||
				    (!override && (c === 0x3f || c === 0x23))) {
					var slash = c === 0x2f || (special && c === 0x5c);
					if (isDoubleDot(buffer)) {
						/* As Node (ada) does, and the standard does
						 * not: a last ".." of a path that was already
						 * empty leaves it empty when not special. */
						var wasEmpty = !url.path.length;
						shortenPath(url);
						if (!slash && (special || !wasEmpty))
							url.path.push('');
					} else if (isSingleDot(buffer) && !slash) {
						url.path.push('');
					} else if (!isSingleDot(buffer)) {
						if (url.scheme === 'file' && !url.path.length &&
						    isWindowsDriveLetter(buffer, false))
							buffer = buffer.charAt(0) + ':';
						url.path.push(buffer);
					}
					buffer = '';
					if (c === 0x3f) {
						url.query = '';
						state = QUERY;
					}
					if (c === 0x23) {
						url.fragment = '';
						state = FRAGMENT;
					}
				} else {
					buffer += encodeCodePoint(c, PATH_SET);
				}
				break;
			case OPAQUE_PATH:
				if (c === 0x3f) {
					url.query = '';
					state = QUERY;
				} else if (c === 0x23) {
					url.fragment = '';
					state = FRAGMENT;
				} else if (c !== EOF) {
					url.path += encodeCodePoint(c, C0_CONTROL_SET);
				}
				break;
			case QUERY:
				if ((!override && c === 0x23) || c === EOF) {
					url.query += encodeString(buffer, special ? SPECIAL_QUERY_SET : QUERY_SET);
					buffer = '';
					if (c === 0x23) {
						url.fragment = '';
						state = FRAGMENT;
					}
				} else {
					buffer += fromCodePoint(c);
				}
				break;
			case FRAGMENT:
				if (c !== EOF)
					url.fragment += encodeCodePoint(c, FRAGMENT_SET);
				break;
			}
			if (p >= n)
				break;
		}
		return url;
	}

	function serializePath(url) {
		if (typeof url.path === 'string')
			return url.path;
		var out = '';
		for (var i = 0; i < url.path.length; i++)
			out += '/' + url.path[i];
		return out;
	}

	function serialize(url, excludeFragment) {
		var out = url.scheme + ':';
		if (url.host !== null) {
			out += '//';
			if (hasCredentials(url)) {
				out += url.username;
				if (url.password !== '')
					out += ':' + url.password;
				out += '@';
			}
			out += url.host;
			if (url.port !== null)
				out += ':' + url.port;
		}
		if (url.host === null && typeof url.path !== 'string' && url.path.length > 1 &&
		    url.path[0] === '')
			out += '/.';
		out += serializePath(url);
		if (url.query !== null)
			out += '?' + url.query;
		if (!excludeFragment && url.fragment !== null)
			out += '#' + url.fragment;
		return out;
	}

	/* ---- application/x-www-form-urlencoded */

	/*
	 * A name or value of a form: '+' a space, then percent-decoded as UTF-8,
	 * as Node 20 decodes it. That is the standard's decoding except for one
	 * with an escape and also a '%' that is none or escapes that are not
	 * UTF-8: Node then takes every other code unit's low byte (so 'é%FF'
	 * gives two U+FFFD where the standard gives 'é' and one).
	 */
	function formDecode(s) {
		if (!/[%+]/.test(s))
			return wellFormed(s);
		s = s.replace(/\+/g, ' ');
		if (!/%[0-9a-fA-F]{2}/.test(s))
			return wellFormed(s);
		try {
			return wellFormed(decodeURIComponent(s));
		} catch (e) {
			/* not UTF-8, or a bare '%' */
		}
		var bytes = [];
		for (var i = 0; i < s.length; i++) {
			if (s.charCodeAt(i) === 0x25 && i + 2 < s.length &&
			    hexValue(s.charCodeAt(i + 1)) >= 0 && hexValue(s.charCodeAt(i + 2)) >= 0) {
				bytes.push(hexValue(s.charCodeAt(i + 1)) * 16 + hexValue(s.charCodeAt(i + 2)));
				i += 2;
			} else {
				bytes.push(s.charCodeAt(i) & 0xff);
			}
		}
		return utf8Decode(bytes);
	}

	/* The list of name-value pairs, flat: [name, value, name, value …]. */
	function parseForm(s) {
		var out = [], parts = s.split('&');
		for (var i = 0; i < parts.length; i++) {
			var part = parts[i];
			if (part === '')
				continue;
			var eq = part.indexOf('='), name = part, value = '';
			if (eq >= 0) {
				name = part.slice(0, eq);
				value = part.slice(eq + 1);
			}
			out.push(formDecode(name), formDecode(value));
		}
		return out;
	}

	function serializeForm(list) {
		var out = '';
		for (var i = 0; i < list.length; i += 2) {
			if (i)
				out += '&';
			out += encodeString(list[i], FORM_SET, true) + '=' +
			       encodeString(list[i + 1], FORM_SET, true);
		}
		return out;
	}

	/* ---- errors as Node words them */

	function invalidURL(input, base) {
		var e = new TypeError('Invalid URL');
		e.code = 'ERR_INVALID_URL';
		e.input = input;
		if (base !== undefined)
			e.base = base;
		return e;
	}

	function coded(Ctor, message, code) {
		var e = new Ctor(message);
		e.code = code;
		return e;
	}

	function missingArgs() {
		var names = [];
		for (var i = 0; i < arguments.length; i++)
			names.push('"' + arguments[i] + '"');
		var what = names.length === 1 ? 'The ' + names[0] + ' argument'
			   : 'The ' + names.join(' and ') + ' arguments';
		return coded(TypeError, what + ' must be specified', 'ERR_MISSING_ARGS');
	}

	function noNew(name) {
		return new TypeError('Class constructor ' + name + " cannot be invoked without 'new'");
	}

	function str(v) {
		if (typeof v === 'symbol')
			throw new TypeError('Cannot convert a Symbol value to a string');
		return String(v);
	}

	/* ---- URL */

	/* self's own state under key: a URL's prototype chain does not make
	 * another object one. */
	function own(self, key) {
		return self !== null && (typeof self === 'object' || typeof self === 'function') &&
		       Object.prototype.hasOwnProperty.call(self, key) ? self[key] : undefined;
	}

	function record(self) {
		var st = own(self, RECORD);
		if (!st)
			throw new TypeError('Receiver must be an instance of class URL');
		return st;
	}

	/* A URL object's state: {url, params (its URLSearchParams, made on
	 * first use)}. After a change to the query, the list of params follows. */
	function queryChanged(st) {
		if (st.params)
			st.params[PARAMS].list = st.url.query === null ? [] : parseForm(st.url.query);
	}

	/* The standard's "potentially strip trailing spaces from an opaque
	 * path", as Node 20 still does. */
	function stripOpaque(url) {
		if (typeof url.path === 'string' && url.fragment === null && url.query === null)
			url.path = url.path.replace(/ +$/, '');
	}

	function URL(input) {
		if (!(this instanceof URL) || this[RECORD])
			throw noNew('URL');
		if (arguments.length === 0)
			throw missingArgs('url');
		input = str(input);
		var base = arguments[1], baseRecord = null;
		if (base !== undefined) {
			base = str(base);
			baseRecord = parse(base, null);
			if (!baseRecord)
				throw invalidURL(input, base);
		}
		var url = parse(input, baseRecord);
		if (!url)
			throw invalidURL(input, base);
		defineProperty(this, RECORD, {value: {url: url, params: null}});
	}

	function canParse(input) {
		if (arguments.length === 0)
			throw missingArgs('url');
		input = str(input);
		var base = arguments[1], baseRecord = null;
		if (base !== undefined) {
			baseRecord = parse(str(base), null);
			if (!baseRecord)
				return false;
		}
		return parse(input, baseRecord) !== null;
	}

	function parseStatic(input) {
		if (arguments.length === 0)
			throw missingArgs('url');
		var base = arguments[1];
		try {
			return base === undefined ? new URL(input) : new URL(input, base);
		} catch (e) {
			if (e && e.code === 'ERR_INVALID_URL')
				return null;
			throw e;
		}
	}

	function cannotHaveCredentials(url) {
		return url.host === null || url.host === '' || url.scheme === 'file';
	}

	function blobOrigin(url) {
		var inner = parse(serializePath(url), null);
		if (inner && (inner.scheme === 'http' || inner.scheme === 'https'))
			return inner.scheme + '://' + hostOf(inner);
		return 'null';
	}

	function hostOf(url) {
		if (url.host === null)
			return '';
		return url.port === null ? url.host : url.host + ':' + url.port;
	}

	var accessors = {
		href: [function () { return serialize(record(this).url); }, function (v) {
			var st = record(this);
			v = str(v);
			var url = parse(v, null);
			if (!url)
				throw invalidURL(v);
			st.url = url;
			queryChanged(st);
		}],
		origin: [function () {
			var url = record(this).url;
			if (url.scheme === 'blob')
				return blobOrigin(url);
			if (isSpecialScheme(url.scheme) && url.scheme !== 'file')
				return url.scheme + '://' + hostOf(url);
			return 'null';
		}],
		protocol: [function () { return record(this).url.scheme + ':'; }, function (v) {
			var url = record(this).url;
			parse(str(v) + ':', null, url, SCHEME_START);
		}],
		username: [function () { return record(this).url.username; }, function (v) {
			var url = record(this).url;
			v = str(v);
			if (!cannotHaveCredentials(url))
				url.username = encodeString(v, USERINFO_SET);
		}],
		password: [function () { return record(this).url.password; }, function (v) {
			var url = record(this).url;
			v = str(v);
			if (!cannotHaveCredentials(url))
				url.password = encodeString(v, USERINFO_SET);
		}],
		host: [function () { return hostOf(record(this).url); }, function (v) {
			setHost(record(this).url, str(v), HOST);
		}],
		hostname: [function () {
			var h = record(this).url.host;
			return h === null ? '' : h;
		}, function (v) { setHost(record(this).url, str(v), HOSTNAME); }],
		port: [function () {
			var p = record(this).url.port;
			return p === null ? '' : String(p);
		}, function (v) {
			setPort(record(this).url, str(v));
		}],
		pathname: [function () { return serializePath(record(this).url); }, function (v) {
			var url = record(this).url;
			v = str(v);
			if (typeof url.path === 'string')
				return;
			url.path = [];
			parse(v, null, url, PATH_START);
		}],
		search: [function () {
			var q = record(this).url.query;
			return q === null || q === '' ? '' : '?' + q;
		}, function (v) {
			var st = record(this), url = st.url;
			v = str(v);
			if (v === '') {
				url.query = null;
				stripOpaque(url);
			} else {
				url.query = '';
				parse(v.charAt(0) === '?' ? v.slice(1) : v, null, url, QUERY);
			}
			queryChanged(st);
		}],
		searchParams: [function () {
			var st = record(this);
			if (!st.params) {
				var params = new URLSearchParams(st.url.query === null ? '' : st.url.query);
				params[PARAMS].owner = st;
				st.params = params;
			}
			return st.params;
		}],
		hash: [function () {
			var f = record(this).url.fragment;
			return f === null || f === '' ? '' : '#' + f;
		}, function (v) {
			var url = record(this).url;
			v = str(v);
			if (v === '') {
				url.fragment = null;
				stripOpaque(url);
				return;
			}
			url.fragment = '';
			parse(v.charAt(0) === '#' ? v.slice(1) : v, null, url, FRAGMENT);
		}]
	};

	/*
	 * The port setter as Node 20 (ada) has it, which differs from the
	 * standard's port state for a value that does not begin with a digit:
	 * one holding no digit, or beginning with a control, a space or '-',
	 * changes nothing; any other (`x1`, `%20`) removes the port. Leading
	 * digits are the port (`81x` is 81); beyond 65535 nothing changes.
	 */
	function setPort(url, v) {
		if (cannotHaveCredentials(url))
			return;
		v = v.replace(/[\t\n\r]/g, '');
		if (v === '') {
			url.port = null;
			return;
		}
		if (v.charCodeAt(0) <= 0x20 || v.charAt(0) === '-' || !/[0-9]/.test(v))
			return;
		var digits = /^[0-9]*/.exec(v)[0];
		if (digits === '') {
			url.port = null;
			return;
		}
		var port = Number(digits);
		if (port <= 65535)
			url.port = port === defaultPort(url.scheme) ? null : port;
	}

	function setHost(url, v, state) {
		if (typeof url.path !== 'string')
			parse(v, null, url, state);
	}

	function method(proto, name, fn, enumerable) {
		defineProperty(proto, name, {value: fn, writable: true, configurable: true,
					     enumerable: enumerable});
	}

	function getterName(fn, name) {
		try {
			defineProperty(fn, 'name', {value: name, configurable: true});
		} catch (e) {}
		return fn;
	}

	/*
	 * What Node shows of a URL with showHidden (`%o`): its internal context,
	 * the offsets of the components in href as Node's parser (ada) keeps
	 * them, 4294967295 where one is omitted.
	 */
	var CONTEXT = Symbol('context'), OMITTED = 4294967295;
	var SCHEME_TYPES = {http: 0, https: 2, ws: 3, ftp: 4, wss: 5, file: 6};

	function URLContext() {}
	var contextGetters = {
		hasPort: function () { return this.port !== OMITTED; },
		hasSearch: function () { return this.search_start !== OMITTED; },
		hasHash: function () { return this.hash_start !== OMITTED; }
	};
	for (var getter in contextGetters)
		defineProperty(URLContext.prototype, getter, {
			get: getterName(contextGetters[getter], 'get ' + getter), configurable: true
		});

	function contextOf(url) {
		var c = new URLContext(), href = serialize(url);
		var protocolEnd = url.scheme.length + 1, usernameEnd, hostStart, hostEnd, pathStart;
		if (url.host !== null) {
			var cred = hasCredentials(url);
			usernameEnd = protocolEnd + 2 + url.username.length;
			hostStart = usernameEnd + (url.password !== '' ? 1 + url.password.length : 0);
			hostEnd = hostStart + (cred ? 1 : 0) + url.host.length;
			pathStart = hostEnd + (url.port !== null ? 1 + String(url.port).length : 0);
		} else {
			usernameEnd = hostStart = hostEnd = protocolEnd;
			pathStart = protocolEnd + (typeof url.path !== 'string' && url.path.length > 1 &&
						   url.path[0] === '' ? 2 : 0);
		}
		var searchStart = OMITTED, hashStart = OMITTED;
		var pathEnd = pathStart + serializePath(url).length;
		if (url.query !== null)
			searchStart = pathEnd;
		if (url.fragment !== null)
			hashStart = url.query !== null ? pathEnd + 1 + url.query.length : pathEnd;
		c.href = href;
		c.protocol_end = protocolEnd;
		c.username_end = usernameEnd;
		c.host_start = hostStart;
		c.host_end = hostEnd;
		c.pathname_start = pathStart;
		c.search_start = searchStart;
		c.hash_start = hashStart;
		c.port = url.port === null ? OMITTED : url.port;
		c.scheme_type = SCHEME_TYPES.hasOwnProperty(url.scheme) ? SCHEME_TYPES[url.scheme] : 1;
		return c;
	}

	var urlProto = URL.prototype;
	method(urlProto, 'toString', getterName(function toString() {
		return serialize(record(this).url);
	}, 'toString'), true);
	for (var key in accessors) {
		var pair = accessors[key];
		defineProperty(urlProto, key, {
			get: getterName(pair[0], 'get ' + key),
			set: pair[1] ? getterName(pair[1], 'set ' + key) : undefined,
			enumerable: true, configurable: true
		});
	}
	method(urlProto, 'toJSON', getterName(function toJSON() {
		return serialize(record(this).url);
	}, 'toJSON'), true);
	method(urlProto, CUSTOM, function (depth, options, inspect) {
		if (typeof depth === 'number' && depth < 0)
			return this;
		var Ctor = this.constructor;
		/* A plain object: Node's is one whose prototype names the class
		 * but which is no instance of it, printed without a prefix. */
		var obj = {};
		var names = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname',
			     'port', 'pathname', 'search', 'searchParams', 'hash'];
		for (var i = 0; i < names.length; i++)
			obj[names[i]] = this[names[i]];
		if (options && options.showHidden)
			obj[CONTEXT] = contextOf(record(this).url);
		return (typeof Ctor === 'function' ? Ctor.name : 'URL') + ' ' +
		       inspectWith(inspect, obj, options);
	}, false);
	defineProperty(urlProto, TO_STRING_TAG, {value: 'URL', configurable: true});
	method(URL, 'parse', getterName(function parse(input) {
		return parseStatic.apply(null, arguments);
	}, 'parse'), true);
	defineProperty(URL.parse, 'length', {value: 1, configurable: true});
	method(URL, 'canParse', getterName(function canParse(input) {
		return canParseImpl.apply(null, arguments);
	}, 'canParse'), true);
	var canParseImpl = canParse;

	/* What inspect gives for v under options: through the inspect the
	 * caller hands a custom inspector, as Node does. */
	function inspectWith(inspect, v, options) {
		if (typeof inspect === 'function')
			return inspect(v, options);
		return JSON.stringify(v);
	}

	/* ---- URLSearchParams */

	function paramsOf(self) {
		var st = own(self, PARAMS);
		if (!st)
			throw coded(TypeError, 'Value of "this" must be of type URLSearchParams',
				    'ERR_INVALID_THIS');
		return st;
	}

	/* The update steps: the owning URL's query follows the list. */
	function update(st) {
		if (!st.owner)
			return;
		var url = st.owner.url, s = serializeForm(st.list);
		url.query = s === '' ? null : s;
		if (s === '')
			stripOpaque(url);
	}

	function tupleError() {
		return coded(TypeError, 'Each query pair must be an iterable [name, value] tuple',
			     'ERR_INVALID_TUPLE');
	}

	/* Steps an iterable, calling fn with each value. */
	function each(iterable, fn) {
		var it = iterable[ITERATOR](), step;
		while (!(step = it.next()).done)
			fn(step.value);
	}

	function URLSearchParams() {
		if (!(this instanceof URLSearchParams) || this[PARAMS])
			throw noNew('URLSearchParams');
		var list = [], init = arguments[0];
		if (init === undefined || init === null) {
			/* empty */
		} else if (typeof init === 'object' || typeof init === 'function') {
			var iter = init[ITERATOR];
			if (iter !== undefined && iter !== null) {
				if (typeof iter !== 'function')
					throw coded(TypeError, 'Query pairs must be iterable',
						    'ERR_ARG_NOT_ITERABLE');
				each(init, function (pair) {
					if (pair === null || pair === undefined)
						throw tupleError();
					if (Array.isArray(pair)) {
						if (pair.length !== 2)
							throw tupleError();
						list.push(wellFormed(str(pair[0])), wellFormed(str(pair[1])));
						return;
					}
					if ((typeof pair !== 'object' && typeof pair !== 'function') ||
					    typeof pair[ITERATOR] !== 'function')
						throw tupleError();
					var n = 0;
					each(pair, function (v) {
						n++;
						list.push(wellFormed(str(v)));
					});
					if (n !== 2)
						throw tupleError();
				});
			} else {
				var keys = Reflect.ownKeys(init), seen = {};
				for (var i = 0; i < keys.length; i++) {
					var d = Object.getOwnPropertyDescriptor(init, keys[i]);
					if (!d || !d.enumerable)
						continue;
					var k = wellFormed(str(keys[i])), v = wellFormed(str(init[keys[i]]));
					if (Object.prototype.hasOwnProperty.call(seen, '$' + k)) {
						list[seen['$' + k]] = v;
					} else {
						seen['$' + k] = list.length + 1;
						list.push(k, v);
					}
				}
			}
		} else {
			init = wellFormed(str(init));
			if (init.charAt(0) === '?')
				init = init.slice(1);
			list = parseForm(init);
		}
		defineProperty(this, PARAMS, {value: {list: list, owner: null}});
	}

	var paramsProto = URLSearchParams.prototype;

	function named(name, fn) { return getterName(fn, name); }

	defineProperty(paramsProto, 'size', {
		get: named('get size', function () { return paramsOf(this).list.length / 2; }),
		enumerable: true, configurable: true
	});
	method(paramsProto, 'append', named('append', function append(name, value) {
		var st = paramsOf(this);
		if (arguments.length < 2)
			throw missingArgs('name', 'value');
		st.list.push(wellFormed(str(name)), wellFormed(str(value)));
		update(st);
	}), true);
	method(paramsProto, 'delete', named('delete', function (name) {
		var st = paramsOf(this), value = arguments[1];
		if (arguments.length < 1)
			throw missingArgs('name');
		name = wellFormed(str(name));
		if (value !== undefined)
			value = wellFormed(str(value));
		var list = st.list;
		for (var i = 0; i < list.length;) {
			if (list[i] === name && (value === undefined || list[i + 1] === value))
				list.splice(i, 2);
			else
				i += 2;
		}
		update(st);
	}), true);
	defineProperty(paramsProto['delete'], 'length', {value: 1, configurable: true});
	method(paramsProto, 'get', named('get', function get(name) {
		var st = paramsOf(this);
		if (arguments.length < 1)
			throw missingArgs('name');
		name = wellFormed(str(name));
		for (var i = 0; i < st.list.length; i += 2)
			if (st.list[i] === name)
				return st.list[i + 1];
		return null;
	}), true);
	method(paramsProto, 'getAll', named('getAll', function getAll(name) {
		var st = paramsOf(this), out = [];
		if (arguments.length < 1)
			throw missingArgs('name');
		name = wellFormed(str(name));
		for (var i = 0; i < st.list.length; i += 2)
			if (st.list[i] === name)
				out.push(st.list[i + 1]);
		return out;
	}), true);
	method(paramsProto, 'has', named('has', function has(name) {
		var st = paramsOf(this), value = arguments[1];
		if (arguments.length < 1)
			throw missingArgs('name');
		name = wellFormed(str(name));
		if (value !== undefined)
			value = wellFormed(str(value));
		for (var i = 0; i < st.list.length; i += 2)
			if (st.list[i] === name && (value === undefined || st.list[i + 1] === value))
				return true;
		return false;
	}), true);
	method(paramsProto, 'set', named('set', function set(name, value) {
		var st = paramsOf(this);
		if (arguments.length < 2)
			throw missingArgs('name', 'value');
		name = wellFormed(str(name));
		value = wellFormed(str(value));
		var list = st.list, found = false;
		for (var i = 0; i < list.length;) {
			if (list[i] !== name) {
				i += 2;
			} else if (!found) {
				list[i + 1] = value;
				found = true;
				i += 2;
			} else {
				list.splice(i, 2);
			}
		}
		if (!found)
			list.push(name, value);
		update(st);
	}), true);
	/* A stable sort by name in code units, as the standard asks. */
	method(paramsProto, 'sort', named('sort', function sort() {
		var st = paramsOf(this), pairs = [], i;
		for (i = 0; i < st.list.length; i += 2)
			pairs.push([st.list[i], st.list[i + 1], i]);
		pairs.sort(function (a, b) {
			if (a[0] !== b[0])
				return a[0] < b[0] ? -1 : 1;
			return a[2] - b[2];
		});
		st.list = [];
		for (i = 0; i < pairs.length; i++)
			st.list.push(pairs[i][0], pairs[i][1]);
		update(st);
	}), true);

	/* ---- iterators */

	function iteratorOf(self) {
		var it = own(self, ITER);
		if (!it)
			throw coded(TypeError, 'Value of "this" must be of type URLSearchParamsIterator',
				    'ERR_INVALID_THIS');
		return it;
	}

	/* s as inspect's options style it ('special': what Node shows for an
	 * object past the depth). */
	function stylized(options, s) {
		return options && typeof options.stylize === 'function' ? options.stylize(s, 'special')
		       : s;
	}

	/* Under %IteratorPrototype% where the engine has one, else with its own
	 * [Symbol.iterator]. */
	var iteratorProto = Object.getPrototypeOf(Object.getPrototypeOf([][ITERATOR]()));
	var paramsIteratorProto = Object.create(iteratorProto && ITERATOR in iteratorProto
						? iteratorProto : Object.prototype);
	if (!(ITERATOR in paramsIteratorProto))
		method(paramsIteratorProto, ITERATOR, named('[Symbol.iterator]', function () {
			return this;
		}), false);
	method(paramsIteratorProto, 'next', named('next', function next() {
		var it = iteratorOf(this);
		var list = it.target.list;
		if (it.index >= list.length)
			return {value: undefined, done: true};
		var name = list[it.index], value = list[it.index + 1];
		it.index += 2;
		return {value: it.kind === 'key' ? name : it.kind === 'value' ? value : [name, value],
			done: false};
	}), true);
	method(paramsIteratorProto, CUSTOM, function (depth, options, inspect) {
		var it = iteratorOf(this);
		if (typeof depth === 'number' && depth < 0)
			return stylized(options, '[Object]');
		var list = it.target.list, out = [];
		for (var i = it.index; i < list.length; i += 2)
			out.push(it.kind === 'key' ? list[i] : it.kind === 'value' ? list[i + 1]
				 : [list[i], list[i + 1]]);
		var inner = innerOptions(options, depth);
		var broken = inspectWith(inspect, out, inner).indexOf('\n') >= 0;
		var parts = [];
		for (i = 0; i < out.length; i++)
			parts.push(inspectWith(inspect, out[i], inner));
		var body = broken ? '\n  ' + parts.join(',\n  ') : ' ' + parts.join(', ');
		return 'URLSearchParams Iterator {' + body + ' }';
	}, false);
	defineProperty(paramsIteratorProto, TO_STRING_TAG,
		       {value: 'URLSearchParams Iterator', configurable: true});

	function makeIterator(self, kind) {
		var it = Object.create(paramsIteratorProto);
		defineProperty(it, ITER, {value: {target: paramsOf(self), kind: kind, index: 0}});
		return it;
	}

	/* options with depth one less, as Node's inspectors pass on. */
	function innerOptions(options, depth) {
		var inner = {};
		if (options && typeof options === 'object')
			for (var k in options)
				inner[k] = options[k];
		if (depth !== null && depth !== undefined)
			inner.depth = depth - 1;
		return inner;
	}

	var entries = named('entries', function entries() { return makeIterator(this, 'key+value'); });
	method(paramsProto, 'entries', entries, true);
	method(paramsProto, 'forEach', named('forEach', function forEach(callback) {
		var st = paramsOf(this), thisArg = arguments[1];
		if (typeof callback !== 'function')
			throw coded(TypeError, 'The "callback" argument must be of type function. ' +
				    'Received ' + describe(callback), 'ERR_INVALID_ARG_TYPE');
		for (var i = 0; i < st.list.length; i += 2)
			callback.call(thisArg, st.list[i + 1], st.list[i], this);
	}), true);
	method(paramsProto, 'keys', named('keys', function keys() { return makeIterator(this, 'key'); }),
	       true);
	method(paramsProto, 'values', named('values', function values() {
		return makeIterator(this, 'value');
	}), true);
	method(paramsProto, 'toString', named('toString', function toString() {
		return serializeForm(paramsOf(this).list);
	}), true);
	method(paramsProto, CUSTOM, function (depth, options, inspect) {
		var st = paramsOf(this);
		if (typeof depth === 'number' && depth < 0)
			return stylized(options, '[Object]');
		var inner = innerOptions(options, depth), parts = [], length = -2;
		for (var i = 0; i < st.list.length; i += 2) {
			var s = inspectWith(inspect, st.list[i], inner) + ' => ' +
				inspectWith(inspect, st.list[i + 1], inner);
			parts.push(s);
			length += s.length + 2;
		}
		var name = this.constructor && this.constructor.name;
		var breakLength = options && typeof options.breakLength === 'number'
				  ? options.breakLength : 80;
		if (length > breakLength)
			return name + ' {\n  ' + parts.join(',\n  ') + ' }';
		if (parts.length)
			return name + ' { ' + parts.join(', ') + ' }';
		return name + ' {}';
	}, false);
	defineProperty(paramsProto, TO_STRING_TAG, {value: 'URLSearchParams', configurable: true});
	method(paramsProto, ITERATOR, entries, false);

	/* Node's words for a value of the wrong type. */
	function describe(v) {
		if (v === null || v === undefined)
			return String(v);
		if (typeof v === 'function')
			return 'function ' + v.name;
		if (typeof v === 'object')
			return 'an instance of ' + (v.constructor && v.constructor.name || 'Object');
		if (typeof v === 'string')
			return "type string ('" + v + "')";
		return 'type ' + typeof v + ' (' + String(v) + ')';
	}

	defineProperty(global, 'URL', {value: URL, writable: true, configurable: true,
				       enumerable: false});
	defineProperty(global, 'URLSearchParams', {value: URLSearchParams, writable: true,
						   configurable: true, enumerable: false});
})
