/*
 * typescript.js - TypeScript syntax on top of acorn.
 *
 * Scripts may be written in TypeScript. Rather than rewriting the source,
 * this subclasses acorn's Parser: types, type-only declarations and the
 * other TypeScript additions are parsed and thrown away, so the result is
 * the plain ES2022 ESTree acorn builds for JavaScript, with positions in
 * the original source (stack traces keep their line numbers). The few
 * constructs with runtime meaning are lowered to JS nodes: enums become the
 * usual `var E; (function (E) {...})(E || (E = {}));` and constructor
 * parameter properties become `this.x = x;` statements. Namespaces and
 * decorators are refused with a SyntaxError.
 *
 * Runs inside Duktape, so ES5 only. Evaluates to a function that takes the
 * acorn module and returns {parse: function (input, options)}; options are
 * acorn's. Ambiguities (`f<T>(x)` against comparisons, typed arrow heads
 * against parenthesized expressions) are settled by parsing speculatively
 * and rewinding; while speculating, errors are a cheap sentinel instead of
 * a SyntaxError, so options.onToken/onComment may see tokens twice.
 */
(function (acorn) {
	'use strict';

	var Parser = acorn.Parser;
	var pp = Parser.prototype;
	var tt = acorn.tokTypes;
	var isIdentifierStart = acorn.isIdentifierStart;
	var isIdentifierChar = acorn.isIdentifierChar;
	var nonASCIIwhitespace = acorn.nonASCIIwhitespace;

	// Thrown instead of a SyntaxError while speculating.
	var SPEC_FAIL = {speculationFailed: true};

	function wordSet(words) {
		var set = Object.create(null);
		words.split(" ").forEach(function (w) { set[w] = true; });
		return set;
	}

	// Words that may start a TypeScript-only statement.
	var STMT_WORDS = wordSet("interface type declare abstract enum namespace module");
	// Words that may follow `declare`.
	var DECLARE_WORDS = wordSet("var let const function class enum abstract namespace module global type interface async");
	// Modifiers on class members (static included: it may come after the others).
	var CLASS_MODS = wordSet("public private protected readonly abstract override declare static");
	// Modifiers on constructor parameters.
	var PARAM_MODS = wordSet("public private protected readonly override");

	function identStart(c) {
		return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 36 || c === 95 ||
			c === 92 || (c > 127 && isIdentifierStart(c, true));
	}

	function identChar(c) {
		return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) ||
			c === 36 || c === 95 || (c > 127 && isIdentifierChar(c, true));
	}

	function isNewLine(c) {
		return c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
	}

	function checkKeyName(node, name) {
		var key = node.key;
		return !node.computed && (key.type === "Identifier" && key.name === name ||
			key.type === "Literal" && key.value === name);
	}

	function popIfLast(list, name) {
		if (list.length && list[list.length - 1] === name)
			list.pop();
	}

	// Statement lists may hold markers for dropped declarations (tsDrop ===
	// true) or for one declaration that lowers to several statements.
	function flatten(list) {
		var out = [], i, j, s, d;
		for (i = 0; i < list.length; i++) {
			s = list[i];
			d = s.tsDrop;
			if (d === undefined)
				out.push(s);
			else if (d !== true)
				for (j = 0; j < d.length; j++)
					out.push(d[j]);
		}
		return out;
	}

	function TSParser(options, input) {
		this.tsSpec = 0;		// speculation depth
		this.tsNL = false;		// set by tsSkipSpace: a line break was skipped
		this.tsNoCond = false;		// in the extends clause of a conditional type
		this.tsCondConsStart = -1;	// start of the innermost `?:` consequent
		this.tsHadReturnType = false;
		this.tsCtorAt = -1;		// position of the '(' of the constructor being parsed
		this.tsPendingProps = null;	// its parameter properties
		this.tsNoBodyOkAt = -1;		// function starting here may lack a body
		this.tsDrops = 0;		// dropped statements so far
		this.tsFarPos = -1;		// furthest error while speculating
		this.tsFarMsg = "";
		Parser.call(this, options, input);
	}

	TSParser.prototype = Object.create(pp);
	TSParser.prototype.constructor = TSParser;
	var tp = TSParser.prototype;

	// ---- errors and speculation ----------------------------------------

	tp.raise = function (pos, message) {
		if (this.tsSpec > 0) {
			if (pos > this.tsFarPos) {
				this.tsFarPos = pos;
				this.tsFarMsg = message;
			}
			throw SPEC_FAIL;
		}
		pp.raise.call(this, pos, message);
	};
	tp.raiseRecoverable = tp.raise;

	tp.getTokenFromCode = function (code) {
		if (code === 64)
			this.raise(this.pos, "decorators are not supported");
		return pp.getTokenFromCode.call(this, code);
	};

	tp.tsSnap = function () {
		var scopes = this.scopeStack, top = scopes[scopes.length - 1];
		return {
			pos: this.pos, type: this.type, value: this.value,
			start: this.start, end: this.end, startLoc: this.startLoc, endLoc: this.endLoc,
			lastTokStart: this.lastTokStart, lastTokEnd: this.lastTokEnd,
			lastTokStartLoc: this.lastTokStartLoc, lastTokEndLoc: this.lastTokEndLoc,
			context: this.context.slice(), exprAllowed: this.exprAllowed,
			containsEsc: this.containsEsc, curLine: this.curLine, lineStart: this.lineStart,
			strict: this.strict, potentialArrowAt: this.potentialArrowAt,
			potentialArrowInForAwait: this.potentialArrowInForAwait,
			yieldPos: this.yieldPos, awaitPos: this.awaitPos, awaitIdentPos: this.awaitIdentPos,
			labels: this.labels, nLabels: this.labels.length,
			nScopes: scopes.length, top: top, nVar: top["var"].length,
			nLex: top.lexical.length, nFun: top.functions.length,
			nPriv: this.privateNameStack.length,
			noCond: this.tsNoCond, condCons: this.tsCondConsStart, ctorAt: this.tsCtorAt,
			pending: this.tsPendingProps, noBodyAt: this.tsNoBodyOkAt
		};
	};

	tp.tsRestore = function (s) {
		this.pos = s.pos; this.type = s.type; this.value = s.value;
		this.start = s.start; this.end = s.end; this.startLoc = s.startLoc; this.endLoc = s.endLoc;
		this.lastTokStart = s.lastTokStart; this.lastTokEnd = s.lastTokEnd;
		this.lastTokStartLoc = s.lastTokStartLoc; this.lastTokEndLoc = s.lastTokEndLoc;
		this.context = s.context; this.exprAllowed = s.exprAllowed;
		this.containsEsc = s.containsEsc; this.curLine = s.curLine; this.lineStart = s.lineStart;
		this.strict = s.strict; this.potentialArrowAt = s.potentialArrowAt;
		this.potentialArrowInForAwait = s.potentialArrowInForAwait;
		this.yieldPos = s.yieldPos; this.awaitPos = s.awaitPos; this.awaitIdentPos = s.awaitIdentPos;
		this.labels = s.labels; this.labels.length = s.nLabels;
		this.scopeStack.length = s.nScopes;
		s.top["var"].length = s.nVar; s.top.lexical.length = s.nLex; s.top.functions.length = s.nFun;
		this.privateNameStack.length = s.nPriv;
		this.tsNoCond = s.noCond; this.tsCondConsStart = s.condCons; this.tsCtorAt = s.ctorAt;
		this.tsPendingProps = s.pending; this.tsNoBodyOkAt = s.noBodyAt;
	};

	// Remembers the names declared in every scope, to forget declarations
	// that are thrown away (`declare ...`).
	tp.tsScopeMark = function () {
		var mark = [], scopes = this.scopeStack, i, sc;
		for (i = 0; i < scopes.length; i++) {
			sc = scopes[i];
			mark.push(sc["var"].length, sc.lexical.length, sc.functions.length);
		}
		return mark;
	};

	tp.tsScopeReset = function (mark) {
		var scopes = this.scopeStack, i, sc;
		for (i = 0; i < scopes.length && 3 * i < mark.length; i++) {
			sc = scopes[i];
			sc["var"].length = mark[3 * i];
			sc.lexical.length = mark[3 * i + 1];
			sc.functions.length = mark[3 * i + 2];
		}
	};

	// ---- looking ahead in the raw input ---------------------------------

	// Skips white space and comments from pos; sets this.tsNL.
	tp.tsSkipSpace = function (pos) {
		var input = this.input, len = input.length, nl = false, c, d, e;
		while (pos < len) {
			c = input.charCodeAt(pos);
			if (c === 32 || c === 9 || c === 11 || c === 12 || c === 160 || c === 0xfeff) {
				pos++;
			} else if (isNewLine(c)) {
				nl = true;
				pos++;
			} else if (c === 47) {
				d = input.charCodeAt(pos + 1);
				if (d === 47) {
					pos += 2;
					while (pos < len && !isNewLine(input.charCodeAt(pos)))
						pos++;
				} else if (d === 42) {
					e = input.indexOf("*/", pos + 2);
					if (e < 0)
						e = len - 2;
					for (pos += 2; pos < e; pos++)
						if (isNewLine(input.charCodeAt(pos)))
							nl = true;
					pos = e + 2;
				} else {
					break;
				}
			} else if (c > 0x1680 && nonASCIIwhitespace.test(String.fromCharCode(c))) {
				pos++;
			} else {
				break;
			}
		}
		this.tsNL = nl;
		return pos;
	};

	// Code of the first character of the next token.
	tp.tsPeekCode = function () {
		return this.input.charCodeAt(this.tsSkipSpace(this.pos));
	};

	// The next token if it is a word (else ""); this.tsNL tells whether a
	// line break comes before it.
	tp.tsPeekWord = function () {
		var input = this.input, p = this.tsSkipSpace(this.pos), q = p;
		if (!identStart(input.charCodeAt(q)))
			return "";
		q++;
		while (identChar(input.charCodeAt(q)))
			q++;
		return input.slice(p, q);
	};

	tp.tsLineBreakBefore = function () {
		var input = this.input, i;
		for (i = this.lastTokEnd; i < this.start; i++)
			if (isNewLine(input.charCodeAt(i)))
				return true;
		return false;
	};

	tp.tsIsLT = function () {
		return this.type === tt.relational && this.value === "<";
	};

	// After a member modifier: does a member name follow?
	tp.tsNameAhead = function (isStatic, sameLine) {
		var c = this.tsPeekCode();
		if (sameLine && this.tsNL)
			return false;
		return identStart(c) || c === 91 || c === 34 || c === 39 || (c >= 48 && c <= 57) ||
			c === 35 || c === 46 || c === 42 || (isStatic && c === 123);
	};

	// After a parameter modifier: does a binding follow?
	tp.tsBindingAhead = function () {
		var c = this.tsPeekCode();
		return identStart(c) || c === 91 || c === 123;
	};

	// At '[': 1 for an index signature `[k: T]`, 2 for a mapped type
	// `[K in T]`, 0 otherwise.
	tp.tsBracketKind = function () {
		var input = this.input, p = this.tsSkipSpace(this.pos), c;
		if (!identStart(input.charCodeAt(p)))
			return 0;
		p++;
		while (identChar(input.charCodeAt(p)))
			p++;
		p = this.tsSkipSpace(p);
		c = input.charCodeAt(p);
		if (c === 58)
			return 1;
		if (c === 105 && input.charCodeAt(p + 1) === 110 && !identChar(input.charCodeAt(p + 2)))
			return 2;
		return 0;
	};

	// ---- types: parsed and discarded -----------------------------------

	tp.tsType = function () {
		this.tsUnion();
		if (this.type === tt._extends && !this.tsNoCond && !this.tsLineBreakBefore()) {
			this.next();
			this.tsNoCond = true;
			this.tsUnion();
			this.tsNoCond = false;
			this.expect(tt.question);
			this.tsType();
			this.expect(tt.colon);
			this.tsType();
		}
	};

	// A type where conditional types are allowed again (inside brackets).
	tp.tsInnerType = function () {
		var old = this.tsNoCond;
		this.tsNoCond = false;
		this.tsType();
		this.tsNoCond = old;
	};

	tp.tsUnion = function () {
		if (this.type === tt.bitwiseOR)
			this.next();
		this.tsIntersection();
		while (this.type === tt.bitwiseOR) {
			this.next();
			this.tsIntersection();
		}
	};

	tp.tsIntersection = function () {
		if (this.type === tt.bitwiseAND)
			this.next();
		this.tsTypeOperator();
		while (this.type === tt.bitwiseAND) {
			this.next();
			this.tsTypeOperator();
		}
	};

	tp.tsTypeOperator = function () {
		if (this.type === tt.name) {
			var v = this.value;
			if (v === "keyof" || v === "unique" || v === "readonly") {
				this.next();
				this.tsTypeOperator();
				return;
			}
			if (v === "infer") {
				this.next();
				this.tsInfer();
				return;
			}
		}
		this.tsPostfix();
	};

	tp.tsInfer = function () {
		if (this.type !== tt.name)
			this.unexpected();
		this.next();
		if (this.type !== tt._extends)
			return;
		if (this.tsNoCond) {
			this.next();
			this.tsType();
			return;
		}
		// `infer U extends X` unless what follows makes it `(infer U) extends X ? :`
		var s = this.tsSnap(), ok = false;
		this.tsSpec++;
		try {
			this.next();
			this.tsNoCond = true;
			this.tsType();
			this.tsNoCond = false;
			ok = this.type !== tt.question;
		} catch (e) {
			if (e !== SPEC_FAIL)
				throw e;
		}
		this.tsSpec--;
		if (!ok)
			this.tsRestore(s);
	};

	tp.tsPostfix = function () {
		this.tsPrimary();
		while (this.type === tt.bracketL && !this.tsLineBreakBefore()) {
			this.next();
			if (this.type === tt.bracketR) {
				this.next();
			} else {
				this.tsInnerType();
				this.expect(tt.bracketR);
			}
		}
	};

	tp.tsPrimary = function () {
		var t = this.type;
		if (t === tt.name) {
			if (this.value === "abstract" && this.tsPeekWord() === "new") {
				this.next();
				this.tsConstructorType();
				return;
			}
			this.tsTypeRef();
		} else if (t === tt.string || t === tt.num || t === tt._null || t === tt._void ||
			   t === tt._true || t === tt._false || t === tt._this) {
			this.next();
		} else if (t === tt.braceL) {
			this.tsObjectType();
		} else if (t === tt.bracketL) {
			this.tsTuple();
		} else if (t === tt.parenL) {
			if (this.tsIsFnTypeStart()) {
				this.tsFnTypeRest();
			} else {
				this.next();
				this.tsInnerType();
				this.expect(tt.parenR);
			}
		} else if (t === tt.relational && this.value === "<") {
			this.tsTypeParams();
			this.tsFnTypeRest();
		} else if (t === tt._new) {
			this.tsConstructorType();
		} else if (t === tt.plusMin && this.value === "-") {
			this.next();
			if (this.type !== tt.num)
				this.unexpected();
			this.next();
		} else if (t === tt._typeof) {
			this.next();
			if (this.type === tt._import) {
				this.tsImportType();
			} else {
				if (this.type !== tt.name && !this.type.keyword)
					this.unexpected();
				this.next();
				this.tsQualifiedRest();
			}
		} else if (t === tt._import) {
			this.tsImportType();
		} else if (t === tt.backQuote) {
			this.tsTemplateType();
		} else {
			this.unexpected();
		}
	};

	// A type reference: A, A.B.C, A<T>, A.B<C>.
	tp.tsTypeRef = function () {
		if (this.type !== tt.name)
			this.unexpected();
		this.next();
		this.tsQualifiedRest();
	};

	tp.tsQualifiedRest = function () {
		while (this.type === tt.dot) {
			this.next();
			if (this.type !== tt.name && !this.type.keyword && this.type !== tt.privateId)
				this.unexpected();
			this.next();
		}
		if (this.type === tt.relational && this.value === "<" && !this.tsLineBreakBefore())
			this.tsTypeArgs();
	};

	tp.tsImportType = function () {
		this.next();
		this.expect(tt.parenL);
		if (this.type !== tt.string)
			this.unexpected();
		this.next();
		if (this.eat(tt.comma) && this.type !== tt.parenR)
			this.tsSkipBalanced();
		this.eat(tt.comma);
		this.expect(tt.parenR);
		this.tsQualifiedRest();
	};

	tp.tsTemplateType = function () {
		this.next();
		for (;;) {
			if (this.type !== tt.template && this.type !== tt.invalidTemplate)
				this.unexpected();
			this.next();
			if (this.type === tt.backQuote) {
				this.next();
				return;
			}
			this.expect(tt.dollarBraceL);
			this.tsInnerType();
			this.expect(tt.braceR);
		}
	};

	// `new (...) => T`, the `new` not yet consumed.
	tp.tsConstructorType = function () {
		this.expect(tt._new);
		if (this.tsIsLT())
			this.tsTypeParams();
		this.tsFnTypeRest();
	};

	// At '(': is this a function type's parameter list?
	tp.tsIsFnTypeStart = function () {
		var s = this.tsSnap(), r = false, t;
		this.tsSpec++;
		try {
			this.next();
			t = this.type;
			if (t === tt.parenR || t === tt.ellipsis) {
				r = true;
			} else {
				if (t === tt.bracketL || t === tt.braceL)
					this.tsSkipBalanced();
				else if (t === tt.name || t === tt._this)
					this.next();
				else
					this.unexpected();
				t = this.type;
				if (t === tt.colon || t === tt.comma || t === tt.question || t === tt.eq) {
					r = true;
				} else if (t === tt.parenR) {
					this.next();
					r = this.type === tt.arrow;
				}
			}
		} catch (e) {
			if (e !== SPEC_FAIL)
				throw e;
		}
		this.tsSpec--;
		this.tsRestore(s);
		return r;
	};

	tp.tsFnTypeRest = function () {
		this.tsParams();
		this.expect(tt.arrow);
		this.tsReturnType();
	};

	// Parameters of a function type or signature (no nodes are built).
	tp.tsParams = function () {
		this.expect(tt.parenL);
		var old = this.tsNoCond;
		this.tsNoCond = false;
		while (this.type !== tt.parenR) {
			if (this.type === tt.ellipsis)
				this.next();
			while (this.type === tt.name && PARAM_MODS[this.value] === true && this.tsBindingAhead())
				this.next();
			if (this.type === tt.bracketL || this.type === tt.braceL)
				this.tsSkipBalanced();
			else if (this.type === tt.name || this.type.keyword)
				this.next();
			else
				this.unexpected();
			if (this.type === tt.question)
				this.next();
			if (this.type === tt.colon) {
				this.next();
				this.tsType();
			}
			if (this.type === tt.eq) {
				this.next();
				this.parseMaybeAssign();
			}
			if (this.type !== tt.parenR)
				this.expect(tt.comma);
		}
		this.next();
		this.tsNoCond = old;
	};

	// Skips a bracketed token sequence, starting at its opener.
	tp.tsSkipBalanced = function () {
		var depth = 0, t;
		do {
			t = this.type;
			if (t === tt.parenL || t === tt.bracketL || t === tt.braceL || t === tt.dollarBraceL)
				depth++;
			else if (t === tt.parenR || t === tt.bracketR || t === tt.braceR)
				depth--;
			else if (t === tt.eof)
				this.unexpected();
			this.next();
		} while (depth > 0);
	};

	// Return type, possibly a type predicate (`x is T`, `asserts x is T`).
	tp.tsReturnType = function () {
		var t = this.type, w;
		if (t === tt.name || t === tt._this) {
			if (t === tt.name && this.value === "asserts") {
				w = this.tsPeekWord();
				if (w !== "" && w !== "is" && !this.tsNL) {
					this.next();
					this.next();
					if (this.type === tt.name && this.value === "is" && !this.tsLineBreakBefore()) {
						this.next();
						this.tsType();
					}
					return;
				}
			}
			if (this.tsPeekWord() === "is" && !this.tsNL) {
				this.next();
				this.next();
				this.tsType();
				return;
			}
		}
		this.tsType();
	};

	// Expects '>', splitting '>>', '>=', '>>=' and the like.
	tp.tsExpectGT = function () {
		if (this.type === tt.relational && this.value === ">") {
			this.next();
			return;
		}
		if (this.input.charCodeAt(this.start) !== 62 ||
		    (this.type !== tt.bitShift && this.type !== tt.relational && this.type !== tt.assign))
			this.unexpected();
		this.pos = this.start + 1;
		this.end = this.pos;
		this.endLoc = this.curPosition();
		this.type = tt.relational;
		this.value = ">";
		this.next();
	};

	// `<T extends X = Y, const U, in out V>`
	tp.tsTypeParams = function () {
		var old = this.tsNoCond, t, w;
		this.tsNoCond = false;
		this.next();
		for (;;) {
			for (;;) {
				t = this.type;
				if (t === tt._const || t === tt._in || t === tt.name && this.value === "out") {
					w = this.tsPeekWord();
					if (w !== "" && w !== "extends") {
						this.next();
						continue;
					}
				}
				break;
			}
			if (this.type !== tt.name)
				this.unexpected();
			this.next();
			if (this.type === tt._extends) {
				this.next();
				this.tsType();
			}
			if (this.type === tt.eq) {
				this.next();
				this.tsType();
			}
			if (this.type === tt.comma) {
				this.next();
				if (this.type === tt.relational && this.value === ">")
					break;
				continue;
			}
			break;
		}
		this.tsExpectGT();
		this.tsNoCond = old;
	};

	// `<A, B>`
	tp.tsTypeArgs = function () {
		var old = this.tsNoCond;
		this.tsNoCond = false;
		this.next();
		for (;;) {
			this.tsType();
			if (this.type !== tt.comma)
				break;
			this.next();
		}
		this.tsExpectGT();
		this.tsNoCond = old;
	};

	tp.tsObjectType = function () {
		var old = this.tsNoCond;
		this.tsNoCond = false;
		this.expect(tt.braceL);
		while (this.type !== tt.braceR) {
			this.tsTypeMember();
			if (this.type === tt.semi || this.type === tt.comma)
				this.next();
			else if (this.type !== tt.braceR && !this.tsLineBreakBefore())
				this.unexpected();
		}
		this.next();
		this.tsNoCond = old;
	};

	tp.tsTypeMember = function () {
		var t = this.type, c;
		if (t === tt.parenL || this.tsIsLT()) {
			this.tsSignature();
			return;
		}
		if (t === tt._new) {
			c = this.tsPeekCode();
			if (c === 40 || c === 60) {
				this.next();
				this.tsSignature();
				return;
			}
		}
		if (t === tt.plusMin) {
			this.next();
			if (this.type !== tt.name || this.value !== "readonly")
				this.unexpected();
			this.next();
		} else if (t === tt.name && this.value === "readonly" && this.tsNameAhead(false, false)) {
			this.next();
		}
		if (this.type === tt.name && (this.value === "get" || this.value === "set") &&
		    this.tsNameAhead(false, false))
			this.next();
		t = this.type;
		if (t === tt.bracketL) {
			c = this.tsBracketKind();
			if (c === 1) {
				this.tsIndexSignature();
				return;
			}
			if (c === 2) {
				this.tsMappedMember();
				return;
			}
			this.next();
			this.parseMaybeAssign();
			this.expect(tt.bracketR);
		} else if (t === tt.name || t === tt.string || t === tt.num || t.keyword) {
			this.next();
		} else {
			this.unexpected();
		}
		if (this.type === tt.question)
			this.next();
		if (this.type === tt.parenL || this.tsIsLT()) {
			this.tsSignature();
		} else if (this.type === tt.colon) {
			this.next();
			this.tsType();
		}
	};

	// `[k: string]: T`, at '['.
	tp.tsIndexSignature = function () {
		this.next();
		this.next();
		this.expect(tt.colon);
		this.tsType();
		this.expect(tt.bracketR);
		if (this.eat(tt.colon))
			this.tsType();
	};

	// `[K in T as U]-?: V`, at '['.
	tp.tsMappedMember = function () {
		this.next();
		this.next();
		this.expect(tt._in);
		this.tsType();
		if (this.type === tt.name && this.value === "as") {
			this.next();
			this.tsType();
		}
		this.expect(tt.bracketR);
		if (this.type === tt.plusMin) {
			this.next();
			if (this.type !== tt.question)
				this.unexpected();
		}
		if (this.type === tt.question)
			this.next();
		if (this.eat(tt.colon))
			this.tsType();
	};

	// Call/construct/method signature: `<T>(x: T): U`.
	tp.tsSignature = function () {
		if (this.tsIsLT())
			this.tsTypeParams();
		this.tsParams();
		if (this.eat(tt.colon))
			this.tsReturnType();
	};

	tp.tsTuple = function () {
		var old = this.tsNoCond, c;
		this.tsNoCond = false;
		this.next();
		while (this.type !== tt.bracketR) {
			if (this.type === tt.ellipsis)
				this.next();
			if (this.type === tt.name || this.type.keyword) {
				// named member `name: T` or `name?: T`
				c = this.tsPeekCode();
				if (c === 58 || c === 63 &&
				    this.input.charCodeAt(this.tsSkipSpace(this.tsSkipSpace(this.pos) + 1)) === 58) {
					this.next();
					this.eat(tt.question);
					this.expect(tt.colon);
				}
			}
			this.tsType();
			this.eat(tt.question);
			if (this.type !== tt.bracketR)
				this.expect(tt.comma);
		}
		this.next();
		this.tsNoCond = old;
	};

	// ---- statements ----------------------------------------------------

	tp.tsDropNode = function (node) {
		this.finishNode(node, "EmptyStatement");
		Object.defineProperty(node, "tsDrop", {value: true});
		this.tsDrops++;
		return node;
	};

	tp.parseStatement = function (context, topLevel, exports) {
		var t = this.type, r;
		if (t === tt.name) {
			if (STMT_WORDS[this.value] === true && !this.containsEsc) {
				r = this.tsStatement(this.value);
				if (r !== null)
					return r;
			}
		} else if (t === tt._const) {
			if (this.tsPeekWord() === "enum") {
				r = this.startNode();
				this.next();
				return this.tsEnum(r);
			}
		}
		return pp.parseStatement.call(this, context, topLevel, exports);
	};

	// A TypeScript statement starting with word, or null if it is JS after all.
	tp.tsStatement = function (word) {
		var node, w = this.tsPeekWord(), nl = this.tsNL, c, mark;
		if (word === "enum")
			return this.tsEnum(this.startNode());
		if (w === "" || nl) {
			if (word === "module" && !nl) {
				c = this.tsPeekCode();
				if (c === 34 || c === 39)
					this.raise(this.start, "TypeScript namespaces are not supported");
			}
			return null;
		}
		node = this.startNode();
		switch (word) {
		case "interface":
			if (this.keywords.test(w))
				return null;
			this.next();
			this.tsInterface();
			return this.tsDropNode(node);
		case "type":
			if (this.keywords.test(w) || w === "instanceof" || w === "in")
				return null;
			this.next();
			this.tsTypeAlias();
			return this.tsDropNode(node);
		case "abstract":
			if (w !== "class")
				return null;
			this.next();
			return this.parseClass(node, true);
		case "namespace":
		case "module":
			if (w === "in" || w === "instanceof")
				return null;
			this.raise(this.start, "TypeScript namespaces are not supported");
			break;
		case "declare":
			if (DECLARE_WORDS[w] !== true)
				return null;
			this.next();
			mark = this.tsScopeMark();
			this.tsDeclare(w);
			this.tsScopeReset(mark);
			return this.tsDropNode(node);
		}
		return null;
	};

	tp.tsInterface = function () {
		if (this.type !== tt.name)
			this.unexpected();
		this.next();
		if (this.tsIsLT())
			this.tsTypeParams();
		if (this.eat(tt._extends)) {
			for (;;) {
				this.tsTypeRef();
				if (!this.eat(tt.comma))
					break;
			}
		}
		this.tsObjectType();
	};

	tp.tsTypeAlias = function () {
		if (this.type !== tt.name)
			this.unexpected();
		this.next();
		if (this.tsIsLT())
			this.tsTypeParams();
		this.expect(tt.eq);
		this.tsType();
		this.semicolon();
	};

	// After `declare`: parse what is declared, for syntax only.
	tp.tsDeclare = function (word) {
		switch (word) {
		case "var":
		case "let":
		case "const":
			if (word === "const" && this.tsPeekWord() === "enum") {
				this.next();
				this.tsEnum(this.startNode());
				return;
			}
			this.next();
			for (;;) {
				this.parseBindingAtom();
				if (this.eat(tt.eq))
					this.parseMaybeAssign();
				if (!this.eat(tt.comma))
					break;
			}
			this.semicolon();
			return;
		case "namespace":
		case "module":
		case "global":
			// ambient: only types inside, skipped wholesale
			this.next();
			while (this.type !== tt.braceL && this.type !== tt.semi && this.type !== tt.eof &&
			       !this.canInsertSemicolon())
				this.next();
			if (this.type === tt.braceL)
				this.tsSkipBalanced();
			else
				this.semicolon();
			return;
		default:
			this.parseStatement(null);
		}
	};

	tp.parseFunctionStatement = function (node, isAsync, declarationPosition) {
		this.tsNoBodyOkAt = node.start;
		var r = pp.parseFunctionStatement.call(this, node, isAsync, declarationPosition);
		if (r.body === null)
			return this.tsDropNode(this.startNodeAt(r.start, r.loc && r.loc.start));
		return r;
	};

	tp.parseTopLevel = function (node) {
		var d = this.tsDrops;
		var r = pp.parseTopLevel.call(this, node);
		if (this.tsDrops !== d)
			r.body = flatten(r.body);
		return r;
	};

	tp.parseBlock = function (createNewLexicalScope, node, exitStrict) {
		var d = this.tsDrops;
		var r = pp.parseBlock.call(this, createNewLexicalScope, node, exitStrict);
		if (this.tsDrops !== d)
			r.body = flatten(r.body);
		return r;
	};

	tp.parseSwitchStatement = function (node) {
		var d = this.tsDrops, i, cases;
		var r = pp.parseSwitchStatement.call(this, node);
		if (this.tsDrops !== d)
			for (cases = r.cases, i = 0; i < cases.length; i++)
				cases[i].consequent = flatten(cases[i].consequent);
		return r;
	};

	tp.parseClassStaticBlock = function (node) {
		var d = this.tsDrops;
		var r = pp.parseClassStaticBlock.call(this, node);
		if (this.tsDrops !== d)
			r.body = flatten(r.body);
		return r;
	};

	// ---- enums ---------------------------------------------------------

	// At `enum`; node starts at `enum` or `const`.
	tp.tsEnum = function (node) {
		var members = [], m;
		this.next();
		var id = this.parseIdent();
		this.expect(tt.braceL);
		while (this.type !== tt.braceR) {
			m = {start: this.start, startLoc: this.startLoc, name: null, init: null};
			if (this.type === tt.string || this.type === tt.name)
				m.name = this.value;
			else if (this.type === tt.bracketL)
				this.raise(this.start, "Computed enum member names are not supported");
			else if (this.type.keyword)
				m.name = this.type.keyword;
			else
				this.unexpected();
			this.next();
			if (this.eat(tt.eq))
				m.init = this.parseMaybeAssign();
			m.end = this.lastTokEnd;
			m.endLoc = this.lastTokEndLoc;
			members.push(m);
			if (!this.eat(tt.comma))
				break;
		}
		this.expect(tt.braceR);
		return this.tsLowerEnum(node, id, members);
	};

	// A node spanning span: a node, or {start, startLoc, end, endLoc}.
	tp.tsMake = function (type, span) {
		var loc = span.loc, node;
		if (loc !== undefined) {
			node = this.startNodeAt(span.start, loc.start);
			return this.finishNodeAt(node, type, span.end, loc.end);
		}
		node = this.startNodeAt(span.start, span.startLoc);
		return this.finishNodeAt(node, type, span.end, span.endLoc);
	};

	tp.tsIdent = function (name, span) {
		var n = this.tsMake("Identifier", span);
		n.name = name;
		return n;
	};

	tp.tsLiteral = function (value, span) {
		var n, neg = typeof value === "number" && (value < 0 || value === 0 && 1 / value < 0);
		if (neg) {
			n = this.tsMake("UnaryExpression", span);
			n.operator = "-";
			n.prefix = true;
			n.argument = this.tsLiteral(-value, span);
			return n;
		}
		n = this.tsMake("Literal", span);
		n.value = value;
		n.raw = typeof value === "string" ? JSON.stringify(value) : String(value);
		return n;
	};

	tp.tsMember = function (object, property, computed, span) {
		var n = this.tsMake("MemberExpression", span);
		n.object = object;
		n.property = property;
		n.computed = computed;
		if (this.options.ecmaVersion >= 11)
			n.optional = false;
		return n;
	};

	tp.tsAssign = function (left, right, span) {
		var n = this.tsMake("AssignmentExpression", span);
		n.operator = "=";
		n.left = left;
		n.right = right;
		return n;
	};

	tp.tsExprStatement = function (expr, span) {
		var n = this.tsMake("ExpressionStatement", span);
		n.expression = expr;
		return n;
	};

	var NONCONST = {nonConst: true};

	// Value of a constant enum initializer, as {v: value}, or null.
	tp.tsEnumConst = function (n, known, enumName) {
		var a, b, k;
		switch (n.type) {
		case "Literal":
			return typeof n.value === "number" || typeof n.value === "string" ? {v: n.value} : null;
		case "TemplateLiteral":
			return n.expressions.length === 0 ? {v: n.quasis[0].value.cooked} : null;
		case "Identifier":
			k = known[n.name];
			return k !== undefined && k !== NONCONST ? k : null;
		case "MemberExpression":
			if (n.object.type !== "Identifier" || n.object.name !== enumName)
				return null;
			if (!n.computed)
				k = known[n.property.name];
			else if (n.property.type === "Literal" && typeof n.property.value === "string")
				k = known[n.property.value];
			return k !== undefined && k !== NONCONST ? k : null;
		case "UnaryExpression":
			a = this.tsEnumConst(n.argument, known, enumName);
			if (a === null || typeof a.v !== "number")
				return null;
			switch (n.operator) {
			case "-": return {v: -a.v};
			case "+": return {v: +a.v};
			case "~": return {v: ~a.v};
			}
			return null;
		case "BinaryExpression":
			a = this.tsEnumConst(n.left, known, enumName);
			b = a && this.tsEnumConst(n.right, known, enumName);
			if (a === null || b === null)
				return null;
			a = a.v;
			b = b.v;
			if (n.operator === "+")
				return {v: a + b};
			if (typeof a !== "number" || typeof b !== "number")
				return null;
			switch (n.operator) {
			case "-": return {v: a - b};
			case "*": return {v: a * b};
			case "/": return {v: a / b};
			case "%": return {v: a % b};
			case "**": return {v: Math.pow(a, b)};
			case "<<": return {v: a << b};
			case ">>": return {v: a >> b};
			case ">>>": return {v: a >>> b};
			case "&": return {v: a & b};
			case "|": return {v: a | b};
			case "^": return {v: a ^ b};
			}
			return null;
		}
		return null;
	};

	// Rewrites references to earlier members (`B = A * 2`) to `E.A`.
	tp.tsEnumRefs = function (n, known, enumName) {
		var k, v, i;
		if (n.type === "Identifier") {
			if (known[n.name] === undefined)
				return n;
			return this.tsMember(this.tsIdent(enumName, n), this.tsIdent(n.name, n), false, n);
		}
		for (k in n) {
			if (k === "loc" || k === "type")
				continue;
			v = n[k];
			if (v === null || typeof v !== "object")
				continue;
			if ((k === "property" && n.type === "MemberExpression" || k === "key" && n.type === "Property") &&
			    !n.computed)
				continue;
			if ((n.type === "FunctionExpression" || n.type === "ArrowFunctionExpression") && k !== "body")
				continue;
			if (v instanceof Array) {
				for (i = 0; i < v.length; i++)
					if (v[i] !== null && typeof v[i].type === "string")
						v[i] = this.tsEnumRefs(v[i], known, enumName);
			} else if (typeof v.type === "string") {
				n[k] = this.tsEnumRefs(v, known, enumName);
				if (k === "value" && n.type === "Property" && n.shorthand && n[k] !== v)
					n.shorthand = false;
			}
		}
		return n;
	};

	tp.tsLowerEnum = function (node, id, members) {
		var name = id.name, known = Object.create(null), next = 0, stmts = [];
		var whole = {start: node.start, startLoc: node.loc && node.loc.start,
			     end: this.lastTokEnd, endLoc: this.lastTokEndLoc};
		var i, m, c, value, isString, key, target, decl, decls, fn, call, or, obj, block;
		for (i = 0; i < members.length; i++) {
			m = members[i];
			if (m.init !== null) {
				c = this.tsEnumConst(m.init, known, name);
				value = this.tsEnumRefs(m.init, known, name);
			} else {
				if (next === null)
					this.raise(m.start, "Enum member must have initializer");
				c = {v: next};
				value = this.tsLiteral(next, m);
			}
			isString = c !== null && typeof c.v === "string";
			next = c !== null && typeof c.v === "number" ? c.v + 1 : null;
			known[m.name] = c !== null ? c : NONCONST;
			key = this.tsLiteral(m.name, m);
			target = this.tsMember(this.tsIdent(name, m), key, true, m);
			if (isString) {
				stmts.push(this.tsExprStatement(this.tsAssign(target, value, m), m));
			} else {
				target = this.tsMember(this.tsIdent(name, m), this.tsAssign(target, value, m), true, m);
				stmts.push(this.tsExprStatement(this.tsAssign(target, this.tsLiteral(m.name, m), m), m));
			}
		}
		// var E;
		decl = this.tsMake("VariableDeclarator", whole);
		decl.id = this.tsIdent(name, id);
		decl.init = null;
		decls = this.tsMake("VariableDeclaration", whole);
		decls.declarations = [decl];
		decls.kind = "var";
		// (function (E) { ... })(E || (E = {}));
		fn = this.tsMake("FunctionExpression", whole);
		fn.id = null;
		fn.expression = false;
		fn.generator = false;
		fn.async = false;
		fn.params = [this.tsIdent(name, id)];
		fn.body = this.tsMake("BlockStatement", whole);
		fn.body.body = stmts;
		obj = this.tsMake("ObjectExpression", whole);
		obj.properties = [];
		or = this.tsMake("LogicalExpression", whole);
		or.left = this.tsIdent(name, id);
		or.operator = "||";
		or.right = this.tsAssign(this.tsIdent(name, id), obj, whole);
		call = this.tsMake("CallExpression", whole);
		call.callee = fn;
		call.arguments = [or];
		if (this.options.ecmaVersion >= 11)
			call.optional = false;
		stmts = [decls, this.tsExprStatement(call, whole)];
		block = this.tsMake("BlockStatement", whole);
		block.body = stmts;
		Object.defineProperty(block, "tsDrop", {value: stmts});
		this.tsDrops++;
		return block;
	};

	// ---- bindings and functions -----------------------------------------

	tp.parseBindingAtom = function () {
		var node = pp.parseBindingAtom.call(this);
		var t = this.type;
		if (t === tt.colon) {
			this.next();
			this.tsType();
		} else if (t === tt.question) {
			this.next();
			if (this.eat(tt.colon))
				this.tsType();
		} else if (t === tt.prefix && this.value === "!" && !this.tsLineBreakBefore()) {
			this.next();
			this.expect(tt.colon);
			this.tsType();
		}
		return node;
	};

	// Parameter lists: `this` parameters, parameter properties.
	tp.parseBindingList = function (close, allowEmpty, allowTrailingComma) {
		if (close !== tt.parenR)
			return pp.parseBindingList.call(this, close, allowEmpty, allowTrailingComma);
		var isCtor = this.lastTokStart === this.tsCtorAt;
		var elts = [], first = true, props = null, modStart, isProp, elem, id;
		while (!this.eat(close)) {
			if (first)
				first = false;
			else
				this.expect(tt.comma);
			if (allowTrailingComma && this.afterTrailingComma(close))
				break;
			if (this.type === tt._this && elts.length === 0 && this.tsPeekCode() === 58) {
				this.next();
				this.next();
				this.tsType();
				continue;
			}
			modStart = this.start;
			isProp = false;
			while (this.type === tt.name && PARAM_MODS[this.value] === true && !this.containsEsc &&
			       this.tsBindingAhead()) {
				this.next();
				isProp = true;
			}
			if (this.type === tt.ellipsis) {
				if (isProp)
					this.raise(modStart, "A parameter property cannot be a rest parameter");
				elem = this.parseRestBinding();
				this.parseBindingListItem(elem);
				elts.push(elem);
				if (this.type === tt.comma)
					this.raise(this.start, "Comma is not permitted after the rest element");
				this.expect(close);
				break;
			}
			elem = this.parseMaybeDefault(this.start, this.startLoc);
			this.parseBindingListItem(elem);
			elts.push(elem);
			if (isProp) {
				if (!isCtor)
					this.raise(modStart, "A parameter property is only allowed in a constructor implementation");
				id = elem.type === "AssignmentPattern" ? elem.left : elem;
				if (id.type !== "Identifier")
					this.raise(modStart, "A parameter property may not be declared using a binding pattern");
				if (props === null)
					props = [];
				props.push(elem);
			}
		}
		if (isCtor)
			this.tsPendingProps = props;
		return elts;
	};

	tp.parseFunctionParams = function (node) {
		if (this.tsIsLT())
			this.tsTypeParams();
		pp.parseFunctionParams.call(this, node);
	};

	tp.parseFunctionBody = function (node, isArrowFunction, isMethod, forInit) {
		var props = null;
		if (!isArrowFunction) {
			if (this.tsPendingProps !== null) {
				if (node.start === this.tsCtorAt)
					props = this.tsPendingProps;
				this.tsPendingProps = null;
			}
			if (this.type === tt.colon) {
				this.next();
				this.tsReturnType();
			}
			if (this.type !== tt.braceL && node.start === this.tsNoBodyOkAt) {
				// overload signature, abstract method, `declare function`
				node.body = null;
				node.expression = false;
				this.semicolon();
				this.exitScope();
				if (node.id) {
					var sc = this.scopeStack[this.scopeStack.length - 1];
					popIfLast(sc.lexical, node.id.name);
					popIfLast(sc["var"], node.id.name);
					popIfLast(sc.functions, node.id.name);
				}
				return;
			}
		}
		pp.parseFunctionBody.call(this, node, isArrowFunction, isMethod, forInit);
		if (props !== null)
			this.tsParamProps(node, props);
	};

	// `constructor(private x)`: `this.x = x;` first thing in the body, or
	// right after the top-level super(...) call.
	tp.tsParamProps = function (node, props) {
		var body = node.body.body, at = 0, i, s, p, id, span, stmts = [];
		while (at < body.length && body[at].directive !== undefined)
			at++;
		for (i = at; i < body.length; i++) {
			s = body[i];
			if (s.type === "ExpressionStatement" && s.expression.type === "CallExpression" &&
			    s.expression.callee.type === "Super") {
				at = i + 1;
				break;
			}
		}
		for (i = 0; i < props.length; i++) {
			p = props[i];
			id = p.type === "AssignmentPattern" ? p.left : p;
			span = p;
			stmts.push(this.tsExprStatement(this.tsAssign(
				this.tsMember(this.tsMake("ThisExpression", span), this.tsIdent(id.name, span), false, span),
				this.tsIdent(id.name, span), span), span));
		}
		body.splice.apply(body, [at, 0].concat(stmts));
	};

	// ---- classes -------------------------------------------------------

	tp.parseClassId = function (node, isStatement) {
		if (this.type === tt.name && this.value === "implements" && isStatement !== true)
			node.id = null;
		else
			pp.parseClassId.call(this, node, isStatement);
		if (this.tsIsLT())
			this.tsTypeParams();
	};

	tp.parseClassSuper = function (node) {
		pp.parseClassSuper.call(this, node);
		if (node.superClass !== null && this.tsIsLT())
			this.tsTypeArgs();
		if (this.type === tt.name && this.value === "implements" && !this.containsEsc) {
			this.next();
			for (;;) {
				this.tsTypeRef();
				if (!this.eat(tt.comma))
					break;
			}
		}
	};

	tp.parseClassElement = function (constructorAllowsSuper) {
		if (this.eat(tt.semi))
			return null;
		var ecmaVersion = this.options.ecmaVersion;
		var node = this.startNode();
		var keyName = "", isGenerator = false, isAsync = false, kind = "method", isStatic = false;
		var drop = false, mod, lastValue, isConstructor;
		while (this.type === tt.name && CLASS_MODS[this.value] === true && !this.containsEsc) {
			mod = this.value;
			if (!this.tsNameAhead(mod === "static", mod !== "static"))
				break;
			this.next();
			if (mod === "static") {
				if (ecmaVersion >= 13 && this.eat(tt.braceL)) {
					this.parseClassStaticBlock(node);
					return node;
				}
				isStatic = true;
			} else if (mod === "abstract" || mod === "declare") {
				drop = true;
			}
		}
		if (this.type === tt.bracketL && this.tsBracketKind() === 1) {
			this.tsIndexSignature();
			this.semicolon();
			return null;
		}
		node["static"] = isStatic;
		if (ecmaVersion >= 8 && this.eatContextual("async")) {
			if ((this.isClassElementNameStart() || this.type === tt.star) && !this.canInsertSemicolon())
				isAsync = true;
			else
				keyName = "async";
		}
		if (!keyName && (ecmaVersion >= 9 || !isAsync) && this.eat(tt.star))
			isGenerator = true;
		if (!keyName && !isAsync && !isGenerator) {
			lastValue = this.value;
			if (this.eatContextual("get") || this.eatContextual("set")) {
				if (this.isClassElementNameStart())
					kind = lastValue;
				else
					keyName = lastValue;
			}
		}
		if (keyName) {
			node.computed = false;
			node.key = this.startNodeAt(this.lastTokStart, this.lastTokStartLoc);
			node.key.name = keyName;
			this.finishNode(node.key, "Identifier");
		} else {
			this.parseClassElementName(node);
		}
		// optional `?` / definite `!`, method type parameters
		if (this.type === tt.question || this.type === tt.prefix && this.value === "!")
			this.next();
		if (this.tsIsLT())
			this.tsTypeParams();
		if (ecmaVersion < 13 || this.type === tt.parenL || kind !== "method" || isGenerator || isAsync) {
			isConstructor = !node["static"] && checkKeyName(node, "constructor");
			if (isConstructor && kind !== "method")
				this.raise(node.key.start, "Constructor can't have get/set modifier");
			node.kind = isConstructor ? "constructor" : kind;
			this.tsNoBodyOkAt = this.start;
			if (isConstructor)
				this.tsCtorAt = this.start;
			this.parseClassMethod(node, isGenerator, isAsync, isConstructor && constructorAllowsSuper);
			if (drop || node.value.body === null)
				return null;
		} else {
			if (this.eat(tt.colon))
				this.tsType();
			this.parseClassField(node);
			if (drop)
				return null;
		}
		return node;
	};

	// ---- expressions ---------------------------------------------------

	tp.parseMaybeConditional = function (forInit, refDestructuringErrors) {
		var startPos = this.start, startLoc = this.startLoc;
		var expr = this.parseExprOps(forInit, refDestructuringErrors);
		if (this.checkExpressionErrors(refDestructuringErrors))
			return expr;
		if (this.eat(tt.question)) {
			var node = this.startNodeAt(startPos, startLoc), old = this.tsCondConsStart;
			node.test = expr;
			this.tsCondConsStart = this.start;
			node.consequent = this.parseMaybeAssign();
			this.tsCondConsStart = old;
			this.expect(tt.colon);
			node.alternate = this.parseMaybeAssign(forInit);
			return this.finishNode(node, "ConditionalExpression");
		}
		return expr;
	};

	// `e as T`, `e as const`, `e satisfies T`: same precedence as `<`.
	tp.parseExprOp = function (left, leftStartPos, leftStartLoc, minPrec, forInit) {
		if (this.type === tt.name && minPrec < 7 && (this.value === "as" || this.value === "satisfies") &&
		    !this.containsEsc && !this.tsLineBreakBefore()) {
			this.next();
			if (this.type === tt._const)
				this.next();
			else
				this.tsType();
			return this.parseExprOp(left, leftStartPos, leftStartLoc, minPrec, forInit);
		}
		return pp.parseExprOp.call(this, left, leftStartPos, leftStartLoc, minPrec, forInit);
	};

	// `<T>(x: T) => x`, or the old-style assertion `<T>e`.
	tp.parseMaybeUnary = function (refDestructuringErrors, sawUnary, incDec, forInit) {
		if (this.type !== tt.relational || this.value !== "<")
			return pp.parseMaybeUnary.call(this, refDestructuringErrors, sawUnary, incDec, forInit);
		var arrow = this.tsTryArrow(this.start, this.startLoc, false, forInit);
		if (arrow !== null)
			return arrow;
		this.tsTypeArgs();
		return this.parseMaybeUnary(refDestructuringErrors, sawUnary, incDec, forInit);
	};

	// An arrow function's head, at its '(': parameters, optional return
	// type, '=>'. Returns the parameters.
	tp.tsArrowHead = function (isAsync) {
		var oldYieldPos = this.yieldPos, oldAwaitPos = this.awaitPos, oldAwaitIdentPos = this.awaitIdentPos;
		this.yieldPos = 0;
		this.awaitPos = 0;
		if (isAsync)
			this.awaitIdentPos = 0;
		this.expect(tt.parenL);
		var params = this.parseBindingList(tt.parenR, false, true);
		this.tsHadReturnType = false;
		if (this.eat(tt.colon)) {
			this.tsReturnType();
			this.tsHadReturnType = true;
		}
		if (this.type !== tt.arrow || this.canInsertSemicolon())
			this.unexpected();
		this.checkYieldAwaitInDefaultParams();
		if (isAsync && this.awaitIdentPos)
			this.raise(this.awaitIdentPos, "Cannot use 'await' as identifier inside an async function");
		this.yieldPos = oldYieldPos;
		this.awaitPos = oldAwaitPos;
		if (isAsync)
			this.awaitIdentPos = oldAwaitIdentPos;
		this.next();
		return params;
	};

	tp.parseParenAndDistinguishExpression = function (canBeArrow, forInit) {
		if (canBeArrow) {
			var startPos = this.start, startLoc = this.startLoc, s = this.tsSnap(), params = null, arrow = null;
			this.tsSpec++;
			this.tsFarPos = -1;
			try {
				params = this.tsArrowHead(false);
			} catch (e) {
				if (e !== SPEC_FAIL)
					throw e;
			}
			if (params !== null) {
				arrow = this.tsArrowFromHead(startPos, startLoc, params, false, forInit);
				if (arrow !== null)
					return arrow;
			} else {
				this.tsSpec--;
			}
			var farPos = this.tsFarPos, farMsg = this.tsFarMsg;
			this.tsRestore(s);
			// If this is no expression either, report whichever reading got
			// further: `(a: number = ) => a` fails at ')', not at ':'.
			try {
				return pp.parseParenAndDistinguishExpression.call(this, canBeArrow, forInit);
			} catch (e3) {
				if (e3 instanceof SyntaxError && this.tsSpec === 0 && farPos > e3.pos)
					pp.raise.call(this, farPos, farMsg);
				throw e3;
			}
		}
		return pp.parseParenAndDistinguishExpression.call(this, canBeArrow, forInit);
	};

	tp.tsTryAsyncArrow = function (startPos, startLoc, forInit) {
		return this.tsTryArrow(startPos, startLoc, true, forInit);
	};

	// An arrow function with optional type parameters from here, or null
	// with the parser back where it was.
	tp.tsTryArrow = function (startPos, startLoc, isAsync, forInit) {
		var s = this.tsSnap(), params = null;
		this.tsSpec++;
		try {
			if (this.tsIsLT())
				this.tsTypeParams();
			if (this.type !== tt.parenL)
				this.unexpected();
			params = this.tsArrowHead(isAsync);
		} catch (e) {
			if (e !== SPEC_FAIL)
				throw e;
		}
		if (params !== null) {
			var arrow = this.tsArrowFromHead(startPos, startLoc, params, isAsync, forInit);
			if (arrow !== null)
				return arrow;
		} else {
			this.tsSpec--;
		}
		this.tsRestore(s);
		return null;
	};

	// The rest of an arrow function whose head was parsed speculatively
	// (this.tsSpec still counts it). Returns null if the caller has to
	// rewind: `c ? (a): T => b : d` is an arrow only if a ':' follows it,
	// otherwise it is `c ? a : (T => b)`.
	tp.tsArrowFromHead = function (startPos, startLoc, params, isAsync, forInit) {
		var arrow = null;
		if (!this.tsHadReturnType || startPos !== this.tsCondConsStart) {
			this.tsSpec--;
			return this.parseArrowExpression(this.startNodeAt(startPos, startLoc), params, isAsync, forInit);
		}
		try {
			arrow = this.parseArrowExpression(this.startNodeAt(startPos, startLoc), params, isAsync, forInit);
		} catch (e) {
			if (e !== SPEC_FAIL)
				throw e;
		}
		this.tsSpec--;
		return arrow !== null && this.type === tt.colon ? arrow : null;
	};

	// At '<' after an expression: type arguments of a call, tagged template
	// or `new`, or of an instantiation expression. Consumes them if so.
	tp.tsTryTypeArgs = function () {
		var s = this.tsSnap(), ok = false, t;
		this.tsSpec++;
		try {
			this.tsTypeArgs();
			t = this.type;
			ok = t === tt.parenL || t === tt.backQuote || t === tt.semi || t === tt.parenR ||
				t === tt.bracketR || t === tt.comma || t === tt.braceR || t === tt.eof;
		} catch (e) {
			if (e !== SPEC_FAIL)
				throw e;
		}
		this.tsSpec--;
		if (!ok)
			this.tsRestore(s);
		return ok;
	};

	tp.parseSubscripts = function (base, startPos, startLoc, noCalls, forInit) {
		var maybeAsyncArrow = this.options.ecmaVersion >= 8 && base.type === "Identifier" && base.name === "async" &&
			this.lastTokEnd === base.end && !this.canInsertSemicolon() && base.end - base.start === 5 &&
			this.potentialArrowAt === base.start;
		var optionalChained = false, element, t, chain;
		if (maybeAsyncArrow && (this.type === tt.parenL || this.tsIsLT())) {
			element = this.tsTryAsyncArrow(startPos, startLoc, forInit);
			if (element !== null)
				return element;
		}
		for (;;) {
			t = this.type;
			if (t === tt.prefix) {
				// non-null assertion `e!`
				if (this.value === "!" && !this.tsLineBreakBefore()) {
					this.exprAllowed = false;
					this.next();
					continue;
				}
			} else if (t === tt.relational) {
				if (this.value === "<" && this.tsTryTypeArgs())
					continue;
			}
			element = this.parseSubscript(base, startPos, startLoc, noCalls, maybeAsyncArrow, optionalChained, forInit);
			if (element.optional)
				optionalChained = true;
			if (element === base || element.type === "ArrowFunctionExpression") {
				if (optionalChained) {
					chain = this.startNodeAt(startPos, startLoc);
					chain.expression = element;
					element = this.finishNode(chain, "ChainExpression");
				}
				return element;
			}
			base = element;
		}
	};

	// Object literal methods with type parameters: `{ m<T>(x: T) {} }`.
	tp.parsePropertyValue = function (prop, isPattern, isGenerator, isAsync, startPos, startLoc,
					  refDestructuringErrors, containsEsc) {
		if (!isPattern && this.tsIsLT())
			this.tsTypeParams();
		return pp.parsePropertyValue.call(this, prop, isPattern, isGenerator, isAsync, startPos, startLoc,
						  refDestructuringErrors, containsEsc);
	};

	return {
		parse: function (input, options) {
			return new TSParser(options, input).parse();
		},
		Parser: TSParser
	};
})
