/*
 * lower.js - ES2015-ES2022 and TypeScript down to the ES5.1 Duktape runs.
 *
 * Runs inside the confined worker, only for code Duktape cannot compile as
 * it is (or that the request says is TypeScript): acorn parses it (the
 * TypeScript plugin when the code is TypeScript), an analysis pass resolves
 * scopes, the transform rewrites the tree into ES5 nodes, and the printer
 * writes it back out keeping every statement on the line it came from, so
 * stack traces name the lines of the code as submitted.
 *
 * ES5 only: it runs in Duktape. Loaded once into the forkserver's prepared
 * engine. Evaluates to a function of (acorn, typescript plugin factory)
 * returning {downlevel}. Names beginning with $$ are the lowering's own.
 */
(function (acorn, tsFactory) {
	'use strict';
	var hasOwn = Object.prototype.hasOwnProperty;
	var ts = null;

	/* An error in the submitted code: reported as a syntax error. */
	function CodeError(message, line, column) {
		this.message = message;
		this.line = line;
		this.column = column;
	}

	function unsupported(node, what) {
		var loc = node.loc ? node.loc.start : {line: 0, column: 0};
		throw new CodeError(what + ' is not supported', loc.line, loc.column + 1);
	}

	/* ---- building nodes */

	function at(node, from) {
		if (from && from.loc)
			node.loc = from.loc;
		return node;
	}
	function id(name, from) { return at({type: 'Identifier', name: name}, from); }
	function lit(v) { return {type: 'Literal', value: v}; }
	function raw(code) { return {type: 'Raw', code: code}; }
	function void0() { return {type: 'UnaryExpression', operator: 'void', prefix: true,
				    argument: lit(0)}; }
	function member(obj, prop) {
		if (typeof prop === 'string')
			return {type: 'MemberExpression', object: obj, property: id(prop),
				computed: false};
		return {type: 'MemberExpression', object: obj, property: prop, computed: true};
	}
	function call(callee, args, from) {
		return at({type: 'CallExpression', callee: callee, arguments: args}, from);
	}
	function rt(name) { return member(id('$$rt'), name); }
	function rtCall(name, args, from) { return call(rt(name), args, from); }
	function assign(left, right, op) {
		return {type: 'AssignmentExpression', operator: op || '=', left: left, right: right};
	}
	function seq(list) {
		return list.length === 1 ? list[0] : {type: 'SequenceExpression', expressions: list};
	}
	function cond(test, a, b) {
		return {type: 'ConditionalExpression', test: test, consequent: a, alternate: b};
	}
	function bin(op, l, r) { return {type: 'BinaryExpression', operator: op, left: l, right: r}; }
	function logical(op, l, r) {
		return {type: 'LogicalExpression', operator: op, left: l, right: r};
	}
	function stmt(e, from) { return at({type: 'ExpressionStatement', expression: e}, from); }
	function ret(arg, from) { return at({type: 'ReturnStatement', argument: arg}, from); }
	function block(body, from) { return at({type: 'BlockStatement', body: body}, from); }
	function varDecl(pairs, from) {
		var decls = [];
		for (var i = 0; i < pairs.length; i++)
			decls.push({type: 'VariableDeclarator', id: pairs[i][0], init: pairs[i][1]});
		return at({type: 'VariableDeclaration', kind: 'var', declarations: decls}, from);
	}
	function fnExpr(params, body, from) {
		return at({type: 'FunctionExpression', id: null, params: params, body: block(body),
			   async: false, generator: false}, from);
	}
	function arrowFn(params, body, from) {
		return at({type: 'ArrowFunctionExpression', id: null, params: params,
			   body: block(body), async: false, generator: false, expression: false}, from);
	}
	function arrayOf(list) { return {type: 'ArrayExpression', elements: list}; }
	function prop(key, value) {
		return {type: 'Property', key: id(key), value: value, kind: 'init', computed: false,
			method: false, shorthand: false};
	}
	function objectOf(props) { return {type: 'ObjectExpression', properties: props}; }

	function isFunction(n) {
		return n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression' ||
		       n.type === 'ArrowFunctionExpression';
	}
	function isLoop(n) {
		return n.type === 'ForStatement' || n.type === 'ForInStatement' ||
		       n.type === 'ForOfStatement' || n.type === 'WhileStatement' ||
		       n.type === 'DoWhileStatement';
	}

	/* Calls fn(child, key) for each child node of n. */
	function children(n, fn) {
		for (var k in n) {
			if (k === 'loc' || k === 'type' || k.charAt(0) === '$' || !hasOwn.call(n, k))
				continue;
			var v = n[k];
			if (v === null || typeof v !== 'object')
				continue;
			if (v instanceof Array) {
				for (var i = 0; i < v.length; i++)
					if (v[i] && typeof v[i].type === 'string')
						fn(v[i], k);
			} else if (typeof v.type === 'string') {
				fn(v, k);
			}
		}
	}

	/* ---- analysis: scopes, renames, captures, loops that need a fresh
	 * binding per iteration */

	function Scope(parent, isFn) {
		this.parent = parent;
		this.fn = isFn ? this : parent.fn;
		/* Where var and function declarations go: the function, or the
		 * body of one whose parameters are not simple (see fn below). */
		this.vars = isFn ? this : parent.vars;
		this.names = {};
		this.start = 0;    /* where its code begins (see tdzRef) */
		this.node = null;  /* a function scope's function */
		this.tdzInit = null; /* bindings that start uninitialised */
		if (isFn) {
			this.hoisted = {}; /* name -> declarations hoisted into it */
			this.outer = {};   /* names used in it that resolve outside it */
			this.loops = [];
			this.awaits = false;
		}
	}

	var BLOCK_KINDS = {let: true, 'const': true, 'class': true, blockfn: true};

	/* True when a body's directive prologue holds "use strict". */
	function strictBody(list) {
		for (var i = 0; i < list.length && list[i].directive !== undefined; i++)
			if (list[i].directive === 'use strict')
				return true;
		return false;
	}

	function analyze(program, rootScope) {
		var refs = [], blockBindings = [], loops = [], used = {}, reserved = [], bodies = [];
		/* Where the binding being declared is initialised: the end of
		 * its declarator, class or pattern element (-1: its own end);
		 * skip, an initialiser evaluated before its pattern binds. */
		var bindEnd = -1, bindSkip = null;
		/* The function whose parameter list is being visited. */
		var inParams = null;
		var fnDecls = [], tdzRefs = [], heritageRefs = [];

		function tdzBinding(b, kind, node) {
			if (kind !== 'let' && kind !== 'const' && kind !== 'class' && kind !== 'param')
				return;
			b.initAt = bindEnd >= 0 ? bindEnd : node.end;
			b.skip = bindSkip;
			if (b.scope.caseEnd !== undefined)
				b.caseEnd = b.scope.caseEnd;
		}


		function declare(scope, name, kind, node) {
			used['$' + name] = true;
			var target = BLOCK_KINDS[kind] === true ? scope : scope.vars;
			var key = '$' + name;
			var b = target.names[key];
			if (!b) {
				b = {name: name, kind: kind, scope: target, nodes: [], captured: false};
				if (name.indexOf('$$') === 0)
					reserved.push(b);
				target.names[key] = b;
				tdzBinding(b, kind, node);
				target.fn.hoisted[key] = (target.fn.hoisted[key] || 0) + 1;
				if (BLOCK_KINDS[kind] === true) {
					if (target !== target.fn)
						blockBindings.push(b);
					var ls = target.fn.loops;
					if (ls.length)
						ls[ls.length - 1].$bindings.push(b);
				}
			}
			b.nodes.push(node);
			b.declCount = (b.declCount || 0) + 1;
			if (kind === 'function')
				b.hasFn = true;
		}

		function pattern(p, scope, kind) {
			switch (p.type) {
			case 'Identifier': declare(scope, p.name, kind, p); break;
			case 'ObjectPattern':
				for (var i = 0; i < p.properties.length; i++) {
					var q = p.properties[i];
					if (q.type === 'RestElement') {
						pattern(q.argument, scope, kind);
					} else {
						if (q.computed)
							visit(q.key, scope);
						pattern(q.value, scope, kind);
					}
				}
				break;
			case 'ArrayPattern':
				for (var j = 0; j < p.elements.length; j++)
					if (p.elements[j])
						pattern(p.elements[j], scope, kind);
				break;
			case 'AssignmentPattern':
				/* A name with a default is bound once the default is
				 * evaluated. */
				var outerEnd = bindEnd, outerSkip = bindSkip;
				bindEnd = p.left.type === 'Identifier' ? p.end : -1;
				/* A pattern's names are bound after its default, which
				 * sees them uninitialised. */
				if (p.left.type !== 'Identifier' && !bindSkip)
					bindSkip = [p.right.start, p.right.end];
				pattern(p.left, scope, kind);
				bindEnd = outerEnd;
				bindSkip = outerSkip;
				visit(p.right, scope);
				break;
			case 'RestElement': pattern(p.argument, scope, kind); break;
			default: visit(p, scope);
			}
		}

		function target(p, scope) {
			switch (p.type) {
			case 'ObjectPattern':
				for (var i = 0; i < p.properties.length; i++) {
					var q = p.properties[i];
					if (q.type === 'RestElement') {
						target(q.argument, scope);
					} else {
						if (q.computed)
							visit(q.key, scope);
						target(q.value, scope);
					}
				}
				break;
			case 'ArrayPattern':
				for (var j = 0; j < p.elements.length; j++)
					if (p.elements[j])
						target(p.elements[j], scope);
				break;
			case 'AssignmentPattern':
				target(p.left, scope);
				visit(p.right, scope);
				break;
			case 'RestElement': target(p.argument, scope); break;
			case 'Identifier':
				p.$write = true;
				visit(p, scope);
				break;
			default: visit(p, scope);
			}
		}

		/* The scope a for-in/of head's expression is evaluated in: the
		 * names the head declares are there, never initialised. */
		function headScope(n, scope) {
			if (n.left.type !== 'VariableDeclaration' || n.left.kind === 'var')
				return scope;
			var hs = new Scope(scope, false), names = boundNames(n.left.declarations[0].id, []);
			hs.start = n.start;
			for (var i = 0; i < names.length; i++)
				hs.names['$' + names[i]] = {name: names[i], kind: 'tdzhead', scope: hs, nodes: [],
							    captured: false, initAt: Infinity};
			return hs;
		}

		function fn(n, scope) {
			var s = new Scope(scope, true);
			s.strict = scope.fn.strict ||
				   (n.body.type === 'BlockStatement' && strictBody(n.body.body));
			s.node = n;
			s.start = n.start;
			n.$fnScope = s;
			s.arrow = n.type === 'ArrowFunctionExpression';
			if (n.type === 'FunctionExpression' && n.id)
				declare(s, n.id.name, 'fname', n.id);
			var simple = true, outerParams = inParams;
			inParams = s;
			for (var i = 0; i < n.params.length; i++) {
				bindEnd = -1;
				pattern(n.params[i], s, 'param');
				simple = simple && n.params[i].type === 'Identifier';
			}
			inParams = outerParams;
			/* Defaults and patterns cannot see the body's declarations:
			 * the body gets a scope of its own, whose names are renamed
			 * if a default reads the same name (see bodyVars). */
			if (n.body.type === 'BlockStatement') {
				var bs = s;
				if (!simple) {
					bs = new Scope(s, false);
					bs.vars = bs;
					bodies.push(n, s, bs);
				}
				initsAt(bs, n.body, n.body.start);
				statements(n.body.body, bs);
			} else {
				visit(n.body, s);
			}
		}

		/* A scope whose uninitialised bindings the transform can set up
		 * at node (a block, a function's body, a switch, the program). */
		function initsAt(s, node, start) {
			s.start = start;
			s.initNode = node;
			node.$scope = s;
		}

		function statements(list, scope) {
			for (var i = 0; i < list.length; i++)
				visit(list[i], scope);
		}

		function loop(n, scope, body) {
			n.$bindings = [];
			loops.push(n);
			scope.fn.loops.push(n);
			body();
			scope.fn.loops.pop();
		}

		/* A function scope for a class member's initialiser or block. */
		function memberScope(m, scope) {
			var s = new Scope(scope, true);
			s.node = m;
			s.start = m.start;
			return s;
		}

		function classBody(n, scope) {
			if (n.superClass)
				visit(n.superClass, scope);
			var members = n.body.body;
			for (var i = 0; i < members.length; i++) {
				var m = members[i];
				if (m.computed)
					visit(m.key, scope);
				if (m.type === 'MethodDefinition') {
					fn(m.value, scope);
				} else if (m.type === 'PropertyDefinition') {
					if (m.value) {
						var s = memberScope(m, scope);
						s.classInit = true;
						visit(m.value, s);
					}
				} else if (m.type === 'StaticBlock') {
					var sb = memberScope(m, scope);
					sb.classInit = true;
					initsAt(sb, m, m.start);
					statements(m.body, sb);
				}
			}
		}

		/* The class's own name inside its body: immutable, and
		 * uninitialised while the heritage and computed keys are
		 * evaluated. A declaration's is a binding of its own (never
		 * renamed: the class's function has that name inside the
		 * lowered class); an expression's is declared as a const. */
		function innerName(n, s) {
			var b = s.names['$' + n.id.name];
			if (!b) {
				b = {name: n.id.name, kind: 'const', scope: s, nodes: [], captured: false};
				s.names['$' + n.id.name] = b;
			}
			b.inner = true;
			b.initAt = n.end;
			b.heritage = n.superClass;
			b.classNode = n;
			return b;
		}

		function visit(n, scope) {
			var s;
			switch (n.type) {
			case 'Identifier':
				used['$' + n.name] = true;
				if (inParams === scope.fn)
					n.$inParams = true;
				refs.push(n, scope);
				return;
			case 'FunctionDeclaration':
				/* In strict code a function declared in a block is
				 * the block's (ES2022 14.2); in sloppy code it stays
				 * the function's, as Annex B.3.3 mostly has it. */
				declare(scope, n.id.name,
					scope !== scope.fn && scope.fn.strict ? 'blockfn' : 'function', n.id);
				fn(n, scope);
				fnDecls.push(n.$fnScope);
				n.$fnScope.nameBinding = scope.names['$' + n.id.name] || scope.fn.names['$' + n.id.name];
				return;
			case 'FunctionExpression':
			case 'ArrowFunctionExpression':
				fn(n, scope);
				return;
			case 'ClassDeclaration':
				bindEnd = n.end;
				declare(scope, n.id.name, 'class', n.id);
				bindEnd = -1;
				s = new Scope(scope, false);
				s.start = n.start;
				innerName(n, s);
				classBody(n, s);
				return;
			case 'ClassExpression':
				s = scope;
				if (n.id) {
					s = new Scope(scope, false);
					s.start = n.start;
					declare(s, n.id.name, 'const', n.id);
					innerName(n, s);
				}
				classBody(n, s);
				return;
			case 'VariableDeclaration':
				for (var i = 0; i < n.declarations.length; i++) {
					var d = n.declarations[i];
					if (n.kind !== 'var') {
						bindEnd = d.id.type === 'Identifier' ? d.end : -1;
						bindSkip = d.init && d.id.type !== 'Identifier' ? [d.init.start, d.init.end]
												 : null;
					}
					pattern(d.id, scope, n.kind);
					bindEnd = -1;
					bindSkip = null;
					if (d.init)
						visit(d.init, scope);
				}
				return;
			case 'BlockStatement':
				s = new Scope(scope, false);
				initsAt(s, n, n.start);
				statements(n.body, s);
				return;
			case 'StaticBlock':
				statements(n.body, new Scope(scope, true));
				return;
			case 'ForStatement':
				s = new Scope(scope, false);
				initsAt(s, n, n.start);
				n.$headScope = s;
				loop(n, scope, function () {
					if (n.init)
						visit(n.init, s);
					if (n.test)
						visit(n.test, s);
					if (n.update)
						visit(n.update, s);
					visit(n.body, s);
				});
				return;
			case 'ForInStatement':
			case 'ForOfStatement':
				if (n.await && scope.fn === rootScope)
					rootScope.awaits = true;
				s = new Scope(scope, false);
				s.start = n.start;
				loop(n, scope, function () {
					if (n.left.type === 'VariableDeclaration')
						visit(n.left, s);
					else
						target(n.left, s);
					visit(n.right, headScope(n, scope));
					visit(n.body, s);
				});
				return;
			case 'WhileStatement':
			case 'DoWhileStatement':
				loop(n, scope, function () {
					visit(n.test, scope);
					visit(n.body, scope);
				});
				return;
			case 'CatchClause':
				s = new Scope(scope, false);
				s.start = n.start;
				s.simpleCatch = !!n.param && n.param.type === 'Identifier';
				if (n.param)
					pattern(n.param, s, 'let');
				visit(n.body, s);
				return;
			case 'SwitchStatement':
				visit(n.discriminant, scope);
				s = new Scope(scope, false);
				initsAt(s, n, n.start);
				for (var c = 0; c < n.cases.length; c++) {
					if (n.cases[c].test)
						visit(n.cases[c].test, s);
					/* A later case is entered without this one's
					 * declarations. */
					s.caseEnd = n.cases[c].end;
					statements(n.cases[c].consequent, s);
				}
				return;
			case 'AssignmentExpression':
				target(n.left, scope);
				visit(n.right, scope);
				return;
			case 'UpdateExpression':
				if (n.argument.type === 'Identifier')
					n.argument.$write = true;
				break;
			case 'MemberExpression':
				visit(n.object, scope);
				if (n.computed)
					visit(n.property, scope);
				return;
			case 'Property':
				if (n.computed)
					visit(n.key, scope);
				visit(n.value, scope);
				return;
			case 'LabeledStatement':
				visit(n.body, scope);
				return;
			case 'AwaitExpression':
				if (scope.fn === rootScope)
					rootScope.awaits = true;
				visit(n.argument, scope);
				return;
			case 'CallExpression':
				/* A direct eval is told the bindings around it. */
				if (n.callee.type === 'Identifier' && n.callee.name === 'eval') {
					n.$evalScope = scope;
					n.$inParams = inParams === scope.fn;
				}
				break;
			case 'BreakStatement':
			case 'ContinueStatement':
			case 'MetaProperty':
			case 'PrivateIdentifier':
			case 'Literal':
			case 'ThisExpression':
			case 'Super':
			case 'TemplateElement':
				return;
			}
			children(n, function (child) { visit(child, scope); });
		}

		rootScope.strict = rootScope.strict || strictBody(program.body);
		/* The temporal dead zone: whether reference node (in scope
		 * from) to b may come before b is initialised. It cannot when
		 * it is after the initialisation in the code and runs in the
		 * same function, or in a closure that may run only after it
		 * (see createdAt), and is not in a later case of a switch.
		 * Before it in the same function it always does: $tdz 'always',
		 * the ReferenceError itself. Else $tdz 'check': the binding
		 * starts as $$rt.TDZ (its scope's tdzInit) and the reference
		 * compares. A class's own name is initialised for its methods,
		 * fields and blocks, never in its heritage and computed keys
		 * (closures in the heritage get a name of their own, see
		 * heritageRefs). References from closures made by a parameter's
		 * default or a class's computed key, or to a for-in/of head's
		 * pattern, are taken as initialised. */
		function tdzRef(node, from, b) {
			if (b.initAt === undefined)
				return;
			if (b.kind === 'const' && node.$write)
				node.$ro = true;
			if (b.kind === 'tdzhead') {
				node.$tdz = 'always';
				return;
			}
			if (b.kind === 'param' && !node.$inParams)
				return;
			var oc = outermost(from, b.scope.fn);
			if (b.inner) {
				if (node.$write)
					node.$ro = true;
				if (!oc)
					node.$tdz = 'always';
				else if (b.heritage && node.start >= b.heritage.start &&
					 node.start < b.heritage.end)
					heritageRefs.push(node, b);
				return;
			}
			var pos = !oc ? node.start : createdAt(oc);
			var later = b.caseEnd !== undefined && pos >= b.caseEnd;
			if (pos >= b.initAt && !(b.skip && pos >= b.skip[0] && pos < b.skip[1]) && !later)
				return;
			if (!oc && !later) {
				node.$tdz = 'always';
				return;
			}
			if (b.kind === 'param' || !b.scope.initNode)
				return;
			node.$tdz = 'check';
			if (!b.needsInit) {
				b.needsInit = true;
				(b.scope.tdzInit || (b.scope.tdzInit = [])).push(b);
			}
		}

		/* The closure that reference scope from is in, directly inside
		 * function scope fs; null when from is in fs itself. */
		function outermost(from, fs) {
			var oc = null;
			for (var f = from.fn; f !== fs; f = f.parent.fn)
				oc = f;
			return oc;
		}

		/* From where in its enclosing function closure oc may run: where
		 * it is created, or for a function declaration the first place
		 * that names it (see callableFrom). */
		function createdAt(oc) {
			return oc.node.type === 'FunctionDeclaration' ? oc.callable : oc.start;
		}

		/* A function declaration is created when its scope is entered,
		 * but runs only once something names it: its callable position
		 * is the earliest of the references to it (those in closures
		 * counting from where the closure may run), found as a fixed
		 * point. A declaration whose name is declared again, or a
		 * program's global (which other code can reach), is taken as
		 * callable from its scope's start. */
		function callableFrom() {
			var i, F, b, live = [];
			for (i = 0; i < fnDecls.length; i++) {
				F = fnDecls[i];
				b = F.nameBinding;
				if (b.kind !== 'function' || b.declCount !== 1 ||
				    b.scope === rootScope && rootScope.isProgram) {
					F.callable = F.parent.start;
				} else {
					F.callable = Infinity;
					live.push(F);
				}
			}
			for (var round = 0, changed = true; changed; round++) {
				changed = false;
				for (i = 0; i < live.length; i++) {
					F = live[i];
					var refs = F.nameBinding.refs || [], p = Infinity;
					for (var r = 0; r < refs.length; r += 2) {
						var oc = outermost(refs[r + 1], F.nameBinding.scope.fn);
						p = Math.min(p, oc ? createdAt(oc) : refs[r]);
					}
					if (round > 32)
						p = Math.min(p, F.parent.start);
					if (p < F.callable) {
						F.callable = p;
						changed = true;
					}
				}
			}
		}

		initsAt(rootScope, program, 0);
		statements(program.body, rootScope);

		/* Resolve every reference. */
		for (var r = 0; r < refs.length; r += 2) {
			var node = refs[r], from = refs[r + 1], key = '$' + node.name, b = null;
			for (var sc = from; sc; sc = sc.parent)
				if (hasOwn.call(sc.names, key)) {
					b = sc.names[key];
					break;
				}
			var stop = b ? b.scope.fn : null;
			for (var f = from.fn; f && f !== stop; f = f.parent ? f.parent.fn : null)
				f.outer[key] = true;
			if (b) {
				b.reads = (b.reads || 0) + 1;
				b.nodes.push(node);
				if (b.initAt !== undefined)
					tdzRefs.push(node, from, b);
				if (b.kind === 'function')
					(b.refs || (b.refs = [])).push(node.start, from);
				if (b.scope.fn !== from.fn) {
					b.captured = true;
					(b.capturedAt || (b.capturedAt = [])).push(node.start);
				}
			} else if (evalEnv && evalEnv.renames && hasOwn.call(evalEnv.renames, key)) {
				/* eval code: a binding of its caller's, renamed there. */
				node.$orig = node.name;
				node.name = evalEnv.renames[key];
			} else if (node.name === 'eval') {
				node.$globalEval = true;
			} else if (node.name.indexOf('$$') === 0) {
				/* A global of such a name, renamed as its binding is
				 * (below) in whichever source declares it. */
				node.$orig = node.name;
				node.name = '$$' + node.name;
			}
		}

		callableFrom();
		for (var t = 0; t < tdzRefs.length; t += 3)
			tdzRef(tdzRefs[t], tdzRefs[t + 1], tdzRefs[t + 2]);

		/* Names beginning with $$ are the lowering's (its temporaries, the
		 * runtime $$rt): the script's own bindings of such names, and the
		 * references to them (and to globals of such names, above), become
		 * $$ + name, which the lowering never makes (its names go on with a
		 * letter). A script's variable can then never hide the runtime
		 * from the code lowered around it, nor name it. */
		for (var rb = 0; rb < reserved.length; rb++) {
			var b2 = reserved[rb], renamed = '$$' + b2.name;
			used['$' + renamed] = true;
			for (var rn = 0; rn < b2.nodes.length; rn++) {
				if (!b2.nodes[rn].$orig)
					b2.nodes[rn].$orig = b2.name;
				b2.nodes[rn].name = renamed;
			}
			b2.name = renamed;
		}

		bodyVars(bodies, used);

		/* A block binding moved to its function's scope must not meet
		 * another of the same name there. */
		var n = 0;
		for (var i = 0; i < blockBindings.length; i++) {
			var bb = blockBindings[i], k = '$' + bb.name, fs = bb.scope.fn;
			if (fs.hoisted[k] > 1 || fs.outer[k]) {
				var name;
				do {
					name = bb.name + '$' + (++n);
				} while (used['$' + name]);
				used['$' + name] = true;
				for (var j = 0; j < bb.nodes.length; j++) {
					bb.nodes[j].$orig = bb.name;
					bb.nodes[j].name = name;
				}
			}
		}

		/* A closure in a class's heritage sees the class's own name,
		 * which the heritage is evaluated outside the lowered class's
		 * function to see: a name of its own, uninitialised there and set
		 * when the class's function starts (see txClass). */
		for (var h = 0; h < heritageRefs.length; h += 2) {
			var hn = heritageRefs[h], hb = heritageRefs[h + 1], cls = hb.classNode;
			if (!cls.$heritageName) {
				var hname;
				do {
					hname = hb.name + '$' + (++n);
				} while (used['$' + hname]);
				used['$' + hname] = true;
				cls.$heritageName = hname;
			}
			hn.$orig = hn.$orig || hn.name;
			hn.name = cls.$heritageName;
			hn.$tdz = 'check';
		}

		for (var l = 0; l < loops.length; l++) {
			var lp = loops[l];
			lp.$wrap = false;
			for (var q = 0; q < lp.$bindings.length; q++)
				if (lp.$bindings[q].captured)
					lp.$wrap = true;
			if (lp.type === 'ForStatement')
				lp.$perIter = capturedInHead(lp);
		}
	}

	/* Whether a closure in a for head (its init, test or update)
	 * captures a let the head declares: then each iteration's copy of
	 * the bindings must be one the test and update see too. */
	function capturedInHead(n) {
		if (!n.init || n.init.type !== 'VariableDeclaration' || n.init.kind !== 'let')
			return false;
		var names = n.$headScope.names, from = n.init.start, to = n.body.start;
		for (var k in names) {
			if (!hasOwn.call(names, k) || !names[k].capturedAt)
				continue;
			var at = names[k].capturedAt;
			for (var i = 0; i < at.length; i++)
				if (at[i] >= from && at[i] < to)
					return true;
		}
		return false;
	}

	/* ---- parameter scope
	 *
	 * A function whose parameters are not all plain names keeps the
	 * body's var and function declarations apart from its parameters
	 * (ES2022 FunctionDeclarationInstantiation, step 28): a closure in a
	 * default sees the parameters and what is outside, never the body's
	 * vars; a body var named as a parameter starts with its value. In ES5
	 * they share one scope, so such a body binding is renamed when the
	 * parameters could tell: something in them names it (an outer
	 * binding or the parameter itself), or the body runs as a function of
	 * its own (a generator's, see txFunction), where the parameter's name
	 * would be hidden. The renamed var then starts as the parameter's
	 * copy (unless a function declaration gives it its value). */
	function bodyVars(bodies, used) {
		var n = 0;
		for (var i = 0; i < bodies.length; i += 3) {
			var fnode = bodies[i], s = bodies[i + 1], bs = bodies[i + 2];
			var split = !!fnode.generator;
			for (var key in bs.names) {
				if (!hasOwn.call(bs.names, key))
					continue;
				var bv = bs.names[key];
				if (BLOCK_KINDS[bv.kind] === true || bv.name === 'arguments')
					continue;
				var p = hasOwn.call(s.names, key) ? s.names[key] : null;
				if (!s.outer[key] && !(p && (split || p.reads || bv.hasFn)))
					continue;
				var name;
				do {
					name = bv.name + '$' + (++n);
				} while (used['$' + name]);
				used['$' + name] = true;
				for (var j = 0; j < bv.nodes.length; j++) {
					if (!bv.nodes[j].$orig)
						bv.nodes[j].$orig = bv.name;
					bv.nodes[j].name = name;
				}
				bv.name = name;
				if (p && p.kind === 'param' && !bv.hasFn)
					(fnode.$bodyInits = fnode.$bodyInits || []).push([bv, p]);
			}
		}
	}

	/* ---- the transform */

	var tempN = 0, classN = 0, usesNamedGroups = false;

	/* A function being lowered: its temporaries, and what arrows inside
	 * it capture. */
	function Fn(parent, arrow) {
		this.parent = parent;
		this.arrow = arrow;
		this.temps = [];
		this.thisVar = null;
		this.argsVar = null;
		this.thisAlias = null; /* a derived constructor's $$self */
		this.home = null;      /* {cls, isStatic} or {obj} for super */
		this.ctor = null;
		this.ntVar = null;     /* new.target, captured for arrows */
		this.noNT = false;     /* a field initialiser: new.target undefined */
		this.strict = !!(parent && parent.strict);
	}

	/* What a lowered function declares first: its temporaries, and the
	 * this and arguments its arrows captured. */
	function declarations(f) {
		var head = [];
		if (f.temps.length) {
			var list = [];
			for (var i = 0; i < f.temps.length; i++)
				list.push([id(f.temps[i]), null]);
			head.push(varDecl(list));
		}
		if (f.thisVar)
			head.push(varDecl([[id(f.thisVar), {type: 'ThisExpression'}]]));
		if (f.argsVar)
			head.push(varDecl([[id(f.argsVar), f.unmapped ? rtCall('unmapped', [raw('arguments')])
								  : raw('arguments')]]));
		if (f.ntVar)
			head.push(varDecl([[id(f.ntVar), rtCall('newTarget', [{type: 'ThisExpression'},
				{type: 'MetaProperty', meta: id('new'), property: id('target')}])]]));
		return head;
	}

	function realFn(c) {
		while (c.arrow && c.parent)
			c = c.parent;
		return c;
	}

	function temp(c) {
		var name = '$$t' + (++tempN);
		c.temps.push(name);
		return name;
	}

	function thisOf(c) {
		var r = realFn(c);
		if (r.thisAlias) /* unbound until super() returns */
			return logical('||', id(r.thisAlias), rtCall('noThis', []));
		if (r === c)
			return {type: 'ThisExpression'};
		if (!r.thisVar)
			r.thisVar = '$$this' + (++tempN);
		return id(r.thisVar);
	}

	function argumentsOf(c, from) {
		var r = realFn(c);
		if (r.argsAlias)
			return id(r.argsAlias, from);
		if (r === c && !r.unmapped)
			return id('arguments', from);
		if (!r.argsVar)
			r.argsVar = '$$args' + (++tempN);
		return id(r.argsVar, from);
	}

	/* The home object of the method super is in: its object literal, or
	 * its class (static members) or the class's prototype. */
	function homeOf(c, node) {
		var r = realFn(c);
		if (!r.home)
			unsupported(node, 'super outside a method');
		if (r.home.obj)
			return id(r.home.obj);
		return r.home.isStatic ? id(r.home.cls) : member(id(r.home.cls), 'prototype');
	}

	/* new.target where c is: a class constructor's, undefined in a field
	 * initialiser, else the enclosing function's. */
	function newTargetOf(c, n) {
		var r = realFn(c);
		if (r.ctor)
			return id(r.ctor.nt, n);
		if (r.noNT)
			return void0();
		if (!r.parent)
			return n;
		if (!r.ntVar)
			r.ntVar = '$$nt' + (++tempN);
		return id(r.ntVar, n);
	}

	/* super[key] as a reference for writing: {ref, key} with the code
	 * evaluating this, then the key. */
	function superRef(m, c) {
		var key = m.computed ? tx(m.property, c) : lit(m.property.name);
		return rtCall('superRef', [thisOf(c), homeOf(c, m), key], m);
	}

	function strictLit(c) { return lit(!!c.strict); }

	function isSuperMember(n) {
		return n && n.type === 'MemberExpression' && n.object.type === 'Super';
	}

	/* super.x = v, super.x op= v and super.x++, in the order the
	 * specification evaluates them. */
	function txSuperAssign(n, c) {
		var r = temp(c), ref = assign(id(r), superRef(n.left || n.argument, c));
		var s = strictLit(c);
		function set(v) { return rtCall('superSet', [id(r), v, s]); }
		function get() { return rtCall('refGet', [id(r)]); }
		if (n.type === 'UpdateExpression') {
			var one = bin(n.operator === '++' ? '+' : '-', null, lit(1));
			if (n.prefix) {
				one.left = {type: 'UnaryExpression', operator: '+', prefix: true,
					    argument: get()};
				return at(seq([ref, set(one)]), n);
			}
			var old = temp(c);
			one.left = id(old);
			return at(seq([ref, assign(id(old), {type: 'UnaryExpression', operator: '+',
							     prefix: true, argument: get()}),
				       set(one), id(old)]), n);
		}
		var op = n.operator, right;
		if (op === '=')
			return at(rtCall('superSet', [ref, tx(n.right, c), s]), n);
		if (op === '||=' || op === '&&=')
			return at(seq([ref, logical(op.slice(0, 2), get(), set(tx(n.right, c)))]), n);
		if (op === '??=') {
			var v = temp(c);
			return at(seq([ref, cond(bin('!=', assign(id(v), get()), lit(null)), id(v),
						 set(tx(n.right, c)))]), n);
		}
		right = tx(n.right, c);
		if (op === '**=')
			return at(seq([ref, set(call(member(id('Math'), 'pow'), [get(), right]))]), n);
		return at(seq([ref, set(bin(op.slice(0, -1), get(), right))]), n);
	}

	function isSimple(e) {
		return e.type === 'Identifier' && e.name !== 'arguments' || e.type === 'Literal' ||
		       e.type === 'ThisExpression';
	}

	function txList(list, c) {
		var out = [];
		for (var i = 0; i < list.length; i++) {
			var r = tx(list[i], c);
			if (r instanceof Array)
				out.push.apply(out, r);
			else if (r)
				out.push(r);
		}
		return out;
	}

	function hasSpread(list) {
		for (var i = 0; i < list.length; i++)
			if (list[i] && list[i].type === 'SpreadElement')
				return true;
		return false;
	}

	/* [a, ...b, c] as an ES5 array expression. */
	function arrayWithSpread(elements, c) {
		var parts = [], run = null;
		for (var i = 0; i < elements.length; i++) {
			var e = elements[i];
			if (e && e.type === 'SpreadElement') {
				run = null;
				parts.push(rtCall('spread', [tx(e.argument, c)]));
			} else {
				if (!run) {
					run = arrayOf([]);
					parts.push(run);
				}
				run.elements.push(e ? tx(e, c) : null);
			}
		}
		var first = parts[0];
		if (!first)
			return arrayOf([]);
		if (parts.length === 1 && first.type === 'ArrayExpression')
			return first;
		if (first.type !== 'ArrayExpression')
			first = arrayOf([]);
		else
			parts.shift();
		return call(member(first, 'concat'), parts);
	}

	/* callee(args) with this = thisExpr when given; callee is lowered. */
	function makeCall(callee, args, c, thisExpr, from) {
		if (!hasSpread(args)) {
			var list = txList(args, c);
			if (thisExpr)
				return call(member(callee, 'call'), [thisExpr].concat(list), from);
			return call(callee, list, from);
		}
		var arr = arrayWithSpread(args, c);
		if (thisExpr)
			return call(member(callee, 'apply'), [thisExpr, arr], from);
		if (callee.type === 'MemberExpression') {
			var o = temp(c);
			var m = {type: 'MemberExpression', object: assign(id(o), callee.object),
				 property: callee.property, computed: callee.computed};
			return call(member(m, 'apply'), [id(o), arr], from);
		}
		return call(member(callee, 'apply'), [void0(), arr], from);
	}

	/* ---- destructuring: pairs [target, value] assigned in order */

	function destructure(p, value, c, out, decl) {
		switch (p.type) {
		case 'Identifier':
			out.push([p, value]);
			return;
		case 'MemberExpression':
			if (isPrivate(p)) {
				out.push([null, rtCall('pset', [tx(p.object, c), privateKey(p.property),
								value])]);
				return;
			}
			if (p.object.type === 'Super') {
				out.push([null, rtCall('superSet', [superRef(p, c), value, strictLit(c)])]);
				return;
			}
			out.push([tx(p, c), value]);
			return;
		case 'AssignmentPattern':
			/* A parenthesised target, [(x) = f] = v, names nothing. */
			if (p.left.type === 'Identifier' && p.left.start === p.start)
				nameIt(p.right, p.left.$orig || p.left.name);
			/* A property target is evaluated before the value is read. */
			var left = p.left.type === 'MemberExpression' ? early(p.left, c, out, decl)
								    : p.left;
			var t = holder(value, c, out, decl);
			destructure(left, cond(bin('===', id(t), void0()), tx(p.right, c), id(t)), c,
				    out, decl);
			return;
		case 'ObjectPattern':
			var src = holder(value, c, out, decl), keys = [];
			if (needsCheck(p))
				out.push([null, rtCall('need', [id(src)])]);
			for (var i = 0; i < p.properties.length; i++) {
				var q = p.properties[i];
				if (q.type === 'RestElement') {
					destructure(q.argument, rtCall('restOf', [id(src), arrayOf(keys)]), c,
						    out, decl);
					continue;
				}
				var access;
				if (q.computed) {
					var k = holder(rtCall('propertyKey', [tx(q.key, c)]), c, out, decl, true);
					keys.push(id(k));
					access = member(id(src), id(k));
				} else {
					var name = q.key.type === 'Identifier' ? q.key.name : q.key.value;
					keys.push(lit(String(name)));
					access = q.key.type === 'Identifier' ? member(id(src), name)
									     : member(id(src), lit(name));
				}
				destructure(q.value, access, c, out, decl);
			}
			return;
		case 'ArrayPattern':
			/* Step by step through an iterator record, closed at the
			 * end; the records are listed on out for abort (see
			 * destructureStatements). An array the runtime reads by
			 * index comes back as itself (f): its elements are read
			 * inline. */
			var v = holder(value, c, out, decl);
			var d = holder(rtCall('record', [id(v)]), c, out, decl, true);
			var f = holder(bin('===', id(d), id(v)), c, out, decl, true);
			(out.$records || (out.$records = [])).push(d);
			var step = function (j) {
				return cond(id(f), member(id(d), lit(j)), call(member(id(d), 's'), []));
			};
			for (var j = 0; j < p.elements.length; j++) {
				var e = p.elements[j];
				if (e && e.type === 'RestElement')
					destructure(e.argument, cond(id(f), rtCall('tail', [id(d), lit(j)]),
								     call(member(id(d), 'r'), [])),
						    c, out, decl);
				else if (e)
					destructure(e, step(j), c, out, decl);
				else
					out.push([null, logical('||', id(f), call(member(id(d), 's'), []))]);
			}
			out.push([null, logical('||', id(f), call(member(id(d), 'e'), []))]);
			return;
		default:
			unsupported(p, 'this assignment target');
		}
	}

	/* A property target evaluated ahead: its object and key in temporaries. */
	function early(m, c, out, decl) {
		if (m.object.type === 'Super' || m.property.type === 'PrivateIdentifier')
			return m;
		var o = holder(tx(m.object, c), c, out, decl, true);
		var k = m.computed ? id(holder(tx(m.property, c), c, out, decl, true)) : m.property;
		return at({type: 'MemberExpression', object: id(o), property: k, computed: m.computed},
			  m);
	}

	/* Whether an object pattern must check its value first: a read of its
	 * first property would not throw before something else ran. */
	function needsCheck(p) {
		if (!p.properties.length)
			return true;
		var q = p.properties[0];
		if (q.type === 'RestElement' || q.computed)
			return true;
		var v = q.value.type === 'AssignmentPattern' ? q.value.left : q.value;
		return v.type !== 'Identifier';
	}

	function hasArrayPattern(p) {
		if (!p)
			return false;
		switch (p.type) {
		case 'ArrayPattern':
			return true;
		case 'AssignmentPattern':
			return hasArrayPattern(p.left);
		case 'RestElement':
			return hasArrayPattern(p.argument);
		case 'Property':
			return hasArrayPattern(p.value);
		case 'ObjectPattern':
			for (var i = 0; i < p.properties.length; i++)
				if (hasArrayPattern(p.properties[i]))
					return true;
		}
		return false;
	}

	/* The pairs of a destructuring as a statement: a declaration (decl) or
	 * assignments. With iterator records, the steps run in a try whose
	 * catch closes the records still open (IteratorClose on a throw); a
	 * declaration then declares its names first, in a block with it. */
	function destructureStatements(pairs, decl, from) {
		var records = pairs.$records, i;
		if (!records)
			return decl ? declOf(pairs, from) : stmt(seq(assignments(pairs, true)), from);
		var out = [];
		if (decl) {
			var names = [], seen = {};
			for (i = 0; i < pairs.length; i++)
				if (pairs[i][0] && !hasOwn.call(seen, pairs[i][0].name)) {
					seen[pairs[i][0].name] = true;
					names.push([pairs[i][0], null]);
				}
			if (names.length)
				out.push(varDecl(names, from));
		}
		out.push(at(abortable(block([stmt(seq(assignments(pairs, !decl)))]), records), from));
		return out.length === 1 ? out[0] : block(out, from);
	}

	/* The pairs as assignments; write: to bindings that may be in their
	 * dead zone or immutable (see writeTo), not declarations. */
	function assignments(pairs, write) {
		var list = [];
		for (var i = 0; i < pairs.length; i++)
			list.push(!pairs[i][0] ? pairs[i][1]
				  : write ? writeTo(pairs[i][0], pairs[i][1]) : assign(pairs[i][0], pairs[i][1]));
		return list;
	}

	/* try { body } catch (e) { $$rt.abort(e, [records]) } */
	function abortable(body, records) {
		var e = '$$e' + (++tempN), list = [];
		for (var i = 0; i < records.length; i++)
			list.push(id(records[i]));
		return {type: 'TryStatement', block: body,
			handler: {type: 'CatchClause', param: id(e),
				  body: block([stmt(rtCall('abort', [id(e), arrayOf(list)]))])},
			finalizer: null};
	}

	/* A name the lowering made ($$ and a letter; a script's own $$ names
	 * have become $$$$..., see analyze). */
	function ours(name) {
		return name.indexOf('$$') === 0 && name.charAt(2) !== '$';
	}

	/* A name holding value: value itself when it is already one of ours. */
	function holder(value, c, out, decl, fresh) {
		if (!fresh && value.type === 'Identifier' && ours(value.name))
			return value.name;
		var name;
		if (decl) {
			name = '$$t' + (++tempN);
		} else {
			name = temp(c);
		}
		out.push([id(name), value]);
		return name;
	}

	function declarators(id0, init, c, out) {
		if (id0.type === 'Identifier') {
			out.push([id0, init]);
			return;
		}
		destructure(id0, init, c, out, true);
	}

	function declOf(pairs, from) {
		var decls = [];
		for (var i = 0; i < pairs.length; i++)
			if (pairs[i][0])
				decls.push({type: 'VariableDeclarator', id: pairs[i][0], init: pairs[i][1]});
			else
				decls.push({type: 'VariableDeclarator', id: id('$$t' + (++tempN)),
					    init: pairs[i][1]});
		return at({type: 'VariableDeclaration', kind: 'var', declarations: decls}, from);
	}

	/* ---- functions */

	function txFunction(n, c) {
		if (n.async || n.generator) {
			/* The body runs as a coroutine; the function returns its
			 * promise or generator object at once. */
			var innerBody = n.body.type === 'BlockStatement' ? n.body
				: block([ret(n.body, n.body)], n.body);
			/* A generator's parameters are bound by the call, so that
			 * their errors are the call's (an async function's reject
			 * its promise instead): when they are more than names, the
			 * function evaluates them, and its body is the coroutine. */
			var early = n.generator && !simpleParams(n.params);
			var inner = {type: n.type === 'ArrowFunctionExpression' ? 'ArrowFunctionExpression'
									: 'FunctionExpression',
				     id: null, params: early ? [] : n.params, body: innerBody, async: false,
				     generator: false, expression: false, loc: n.loc,
				     $home: n.$home, $asyncGen: n.async && n.generator,
				     $bodyInits: n.$bodyInits, $gen: n.generator};
			/* A generator's objects inherit from its prototype: it
			 * passes itself, by its own name or one of ours. */
			var self = n.generator ? (n.id ? n.id : id('$$g' + (++tempN))) : null;
			var runArgs = [raw('this'), early ? id('arguments') : raw('arguments'), inner];
			if (self)
				runArgs.push(id(self.name));
			var outer = {type: n.type, id: self || n.id,
				     params: early ? n.params : lengthParams(n.params),
				     async: false, generator: false, expression: false, loc: n.loc,
				     $home: n.$home, $named: n.generator ? undefined : n.$named,
				     $method: !n.generator, $bare: n.$bare, start: n.start,
				     body: block([ret(rtCall(n.async && n.generator ? 'asyncGenerator'
						: n.async ? 'async' : 'generator', runArgs), n)], n.body)};
			/* Those that stay functions (generators, declarations) refuse new. */
			if (n.generator || n.type === 'FunctionDeclaration')
				outer.body.body.unshift(stmt(rtCall('notNew', [raw('new.target')])));
			/* A strict body makes the function strict: its this too. */
			if (hasUseStrict(innerBody))
				outer.body.body.unshift({type: 'ExpressionStatement', expression: lit('use strict'),
							 directive: 'use strict'});
			var lowered = txFunction(outer, c);
			return n.generator ? generatorFn(lowered, n, self) : asyncFn(lowered, n);
		}
		var arrow = n.type === 'ArrowFunctionExpression';
		var f = new Fn(c, arrow);
		f.strict = !!(c && c.strict) || n.body.type === 'BlockStatement' && strictBody(n.body.body);
		/* Parameters that are more than names have an unmapped arguments
		 * object, which the engine gives sloppy functions only for none. */
		f.unmapped = !arrow && !f.strict && !simpleParams(n.params);
		f.asyncGen = !!n.$asyncGen;
		f.noNT = !!n.$noNT;
		if (n.$strict || n.body.type === 'BlockStatement' && hasUseStrict(n.body))
			f.strict = true;
		f.gen = !!n.$gen;
		if (n.$home)
			f.home = n.$home;
		if (n.$ctor) {
			f.ctor = n.$ctor;
			if (f.ctor.derived)
				f.thisAlias = '$$self' + (++tempN);
		}
		var pro = [], params = [];
		for (var i = 0; i < n.params.length; i++) {
			var p = n.params[i];
			if (p.type === 'Identifier') {
				params.push(p);
			} else if (p.type === 'AssignmentPattern' && p.left.type === 'Identifier') {
				params.push(p.left);
				nameIt(p.right, p.left.$orig || p.left.name);
				pro.push(at({type: 'IfStatement', test: bin('===', id(p.left.name), void0()),
					     consequent: stmt(assign(id(p.left.name), tx(p.right, f))),
					     alternate: null}, p));
			} else if (p.type === 'RestElement') {
				var slice = call(member(member(member(id('Array'), 'prototype'), 'slice'),
							'call'), [raw('arguments'), lit(i)]);
				var pairs = [];
				declarators(p.argument, slice, f, pairs);
				pro.push(destructureStatements(pairs, true, p));
			} else {
				var name = '$$p' + (++tempN);
				params.push(id(name));
				var ps = [];
				destructure(p, id(name), f, ps, true);
				pro.push(destructureStatements(ps, true, p));
			}
		}
		var inits = n.$bodyInits || [];
		for (i = 0; i < inits.length; i++)
			pro.push(stmt(assign(id(inits[i][0].name), id(inits[i][1].name))));
		var body;
		if (n.body.type === 'BlockStatement') {
			body = txList(n.body.body, f);
		} else {
			body = [ret(tx(n.body, f), n.body)];
		}
		if (f.ctor)
			body = ctorBody(f, body, n);
		var head = declarations(f);
		var directives = [];
		while (body.length && body[0].directive)
			directives.push(body.shift());
		var late = lateParams(n, params);
		body = txList(tdzPrelude(n.body), f).concat(body);
		var all = directives.concat(head, f.ctorHead || [], late, pro, body);
		var out = {type: n.type === 'FunctionDeclaration' ? 'FunctionDeclaration'
								     : 'FunctionExpression',
			   id: n.id && n.type !== 'ArrowFunctionExpression' ? n.id : null,
			   params: params, body: at(block(all), n.body), loc: n.loc};
		return named(out, n);
	}

	/* The lowered generator function fn of n, given its prototype (and
	 * its name, when self is one of ours): a declaration by a statement
	 * where it stands (the runtime also does it at its first call). */
	function generatorFn(fn, n, self) {
		if (fn.type === 'FunctionDeclaration')
			return [fn, stmt(rtCall('genFn', [id(self.name), lit(!!n.async)]), n)];
		var args = [fn, lit(!!n.async)];
		if (!n.id)
			args = args.concat(nameArgs(n.$named === undefined ? '' : n.$named));
		return rtCall('genFn', args, n);
	}

	/* The lowered async function fn of n, marked as one by the runtime
	 * (for util.inspect): a declaration by a statement where it stands. */
	function asyncFn(fn, n) {
		if (fn.type === 'FunctionDeclaration')
			return [fn, stmt(rtCall('asyncFn', [id(fn.id.name)]), n)];
		return rtCall('asyncFn', [fn], n);
	}

	/* ---- function length: the parameters before the first default or rest */

	function expectedLength(list) {
		for (var i = 0; i < list.length; i++)
			if (list[i].type === 'AssignmentPattern' || list[i].type === 'RestElement')
				return i;
		return list.length;
	}

	/* Formals for a wrapper whose length must be that of list: names it
	 * never reads. */
	function lengthParams(list) {
		var out = [];
		for (var i = expectedLength(list); i > 0; i--)
			out.push(id('$$f' + (++tempN)));
		return out;
	}

	/* Cuts the lowered formals params down to the function's length: the
	 * ones after it become variables read from arguments, first thing in
	 * the body (an arrow's own arguments here: the lowered function's). */
	function lateParams(n, params) {
		var len = expectedLength(n.params);
		if (params.length <= len)
			return [];
		var pairs = [];
		for (var i = len; i < params.length; i++)
			pairs.push([id(params[i].name), member(raw('arguments'), lit(i))]);
		params.length = len;
		return [varDecl(pairs)];
	}

	/* A body whose directive prologue has "use strict". */
	function hasUseStrict(body) {
		for (var i = 0; i < body.body.length && body.body[i].directive !== undefined; i++)
			if (body.body[i].directive === 'use strict')
				return true;
		return false;
	}

	function simpleParams(params) {
		for (var i = 0; i < params.length; i++)
			if (params[i].type !== 'Identifier')
				return false;
		return true;
	}

	/* ---- function names */

	var RESERVED = ('break case catch class const continue debugger default delete do else enum ' +
			'export extends false finally for function if implements import in instanceof ' +
			'interface let new null package private protected public return static super ' +
			'switch this throw true try typeof var void while with yield await arguments ' +
			'eval undefined').split(' ');

	function mentions(n, name) {
		if (!n || typeof n.type !== 'string')
			return false;
		if (n.type === 'Identifier' && n.name === name)
			return true;
		var found = false;
		children(n, function (child) { found = found || mentions(child, name); });
		return found;
	}

	var IDENT = /^[A-Za-z_$][\w$]*$/;

	/* An anonymous function or class definition: it takes the name of
	 * where it stands (IsAnonymousFunctionDefinition). */
	function isAnonymous(e) {
		return !!e && (e.type === 'ArrowFunctionExpression' ||
			       (e.type === 'FunctionExpression' || e.type === 'ClassExpression') && !e.id);
	}

	/* Marks value, when it is an anonymous function or class, with the
	 * name a NamedEvaluation gives it: a string, or {key, prefix} for a
	 * computed key held in key (an expression the lowering made, cheap to
	 * repeat) that the runtime turns into a name. Applied when value is
	 * lowered. */
	function nameIt(value, name) {
		if (isAnonymous(value) && value.$named === undefined)
			value.$named = name;
	}

	/* A name Duktape takes as a method's key in an object literal and
	 * names the method after (not reserved words, nor get and set, which
	 * it reads as an accessor). */
	function methodKey(name) {
		return typeof name === 'string' && IDENT.test(name) && !ours(name) &&
		       RESERVED.indexOf(name) < 0 && name !== 'get' && name !== 'set';
	}

	/* The name as an argument list for the runtime's fname. */
	function nameArgs(want) {
		if (typeof want === 'string')
			return [lit(want)];
		return want.prefix ? [want.key, lit(want.prefix)] : [want.key];
	}

	/* A function the script wrote (not one the lowering made). */
	function written(n) {
		return typeof n.start === 'number';
	}

	/* The lowered function out of n, under its ES2022 name and kind.
	 * Arrows, methods, accessors and async functions are not constructors
	 * and have no prototype: they become the method of an object literal
	 * ({name(...) {...}}.name), which Duktape makes so and which binds no
	 * name inside. Other functions take the name as their own when that
	 * cannot hide an outer binding the body uses; any other name is set
	 * by the runtime. */
	function named(out, n) {
		var want = n.$named;
		if (n.id && n.type !== 'ArrowFunctionExpression') {
			if (!n.id.$orig || n.type !== 'FunctionExpression')
				return out;
			want = n.id.$orig;
		}
		if (n.$bare)
			return out;
		if (n.$method || n.type === 'ArrowFunctionExpression' && written(n)) {
			var key = methodKey(want) ? want : null;
			out.id = null;
			var m = member(objectOf([{type: 'Property', key: key ? id(key) : lit(''),
						  value: out, kind: 'init', method: true,
						  computed: false, shorthand: false}]),
				       key || lit(''));
			if (key || want === undefined)
				return m;
			return rtCall('fname', [m].concat(nameArgs(want)));
		}
		if (want === undefined)
			return out;
		if (!out.id && typeof want === 'string' && IDENT.test(want) && !ours(want) &&
		    RESERVED.indexOf(want) < 0 && !mentions(n, want) && !mentions(n, 'eval')) {
			out.id = id(want);
			return out;
		}
		return rtCall('fname', [out].concat(nameArgs(want)));
	}

	/* ---- classes */

	var classes = []; /* private names of the classes being lowered */

	/* #name's record in the class that declares it (see the runtime's
	 * private names): an element of the class's array of records. */
	function privateKey(node) {
		for (var i = classes.length - 1; i >= 0; i--)
			if (hasOwn.call(classes[i], '#' + node.name)) {
				var r = classes[i]['#' + node.name];
				return member(id(r.v), lit(r.i));
			}
		unsupported(node, 'the private name #' + node.name + ' outside its class');
	}

	function isPrivate(n) {
		return n.type === 'MemberExpression' && n.property.type === 'PrivateIdentifier';
	}

	/* The private names a class declares: '#name' -> {v, i}, its record
	 * being element i of the array in variable v, made by one call of the
	 * runtime's pnames (a class may declare thousands); that declaration;
	 * and the methods and accessors whose brands instances (or the class)
	 * get. */
	function privateNames(members) {
		var priv = {}, spec = [], inst = [], stat = [], v = '$$pn' + (++tempN);
		for (var i = 0; i < members.length; i++) {
			var m = members[i];
			if (!m.key || m.key.type !== 'PrivateIdentifier')
				continue;
			var k = '#' + m.key.name;
			var kind = m.type === 'PropertyDefinition' ? 'f'
				: m.kind === 'get' || m.kind === 'set' ? 'a' : 'm';
			if (!hasOwn.call(priv, k)) {
				priv[k] = {v: v, i: spec.length};
				if (kind !== 'f')
					(m.static ? stat : inst).push(member(id(v), lit(spec.length)));
				spec.push(kind + k);
			}
		}
		return {names: priv, inst: inst, stat: stat,
			decl: spec.length ? varDecl([[id(v), rtCall('pnames', [lit(spec.join(' '))])]])
				: null};
	}

	/* o.#x = v, o.#x op= v, o.#x &&= v ...: the runtime's pget and pset. */
	function txPrivateAssign(n, c) {
		var P = privateKey(n.left.property), obj = tx(n.left.object, c);
		var op = n.operator;
		if (op === '=')
			return at(rtCall('pset', [obj, P, tx(n.right, c)]), n);
		var ot = temp(c);
		var get = rtCall('pget', [assign(id(ot), obj), P]);
		var set = function (v) { return rtCall('pset', [id(ot), P, v]); };
		var right = tx(n.right, c);
		if (op === '||=' || op === '&&=')
			return at(logical(op.slice(0, 2), get, set(right)), n);
		if (op === '??=') {
			var v = temp(c);
			return at(cond(bin('!=', assign(id(v), get), lit(null)), id(v), set(right)), n);
		}
		/* The object is evaluated first, then read, then the right side. */
		var old = rtCall('pget', [id(ot), P]);
		var value = op === '**=' ? call(member(id('Math'), 'pow'), [old, right])
			: bin(op.slice(0, -1), old, right);
		return at(rtCall('pset', [assign(id(ot), obj), P, value]), n);
	}

	/* o.#x++, --o.#x */
	function txPrivateUpdate(n, c) {
		var P = privateKey(n.argument.property), ot = temp(c), old = temp(c);
		var read = assign(id(old), {type: 'UnaryExpression', operator: '+', prefix: true,
			argument: rtCall('pget', [assign(id(ot), tx(n.argument.object, c)), P])});
		var next = bin(n.operator.charAt(0), id(old), lit(1));
		if (n.prefix)
			return at(seq([read, rtCall('pset', [id(ot), P, next])]), n);
		return at(seq([read, rtCall('pset', [id(ot), P, next]), id(old)]), n);
	}

	/* A member's key, lowered later with the rest of the class. */
	function keyOf(m) {
		if (m.key.type === 'PrivateIdentifier')
			return privateKey(m.key);
		if (m.computed)
			return m.key;
		return lit(m.key.type === 'Identifier' ? m.key.name : String(m.key.value));
	}

	/* A class constructor starts by finding its new.target (a call
	 * without new throws); a derived one keeps the object the engine made
	 * for super() to construct on, its this unbound until then. Its body
	 * is a labelled block its returns break out of (through the finally
	 * blocks they are in), after which what it returns is checked. */
	function ctorBody(f, body, n) {
		var info = f.ctor;
		var nt = rtCall('ctorCheck', [{type: 'ThisExpression'},
					      {type: 'MetaProperty', meta: id('new'), property: id('target')},
					      lit(info.display)]);
		f.ctorHead = [varDecl([[id(info.nt), nt]])];
		if (info.derived) {
			f.ctorHead.push(varDecl([[id(info.alloc), {type: 'ThisExpression'}],
						 [id(f.thisAlias), null], [id(info.rv), null]]));
			var directives = [];
			while (body.length && body[0].directive)
				directives.push(body.shift());
			body = directives.concat([{type: 'LabeledStatement', label: id(info.label),
						   body: block(body)},
						  ret(rtCall('ctorReturn', [id(info.rv), id(f.thisAlias)]))]);
		} else if (info.init) {
			f.ctorHead.push(stmt(call(member(id(info.init), 'call'),
						  [{type: 'ThisExpression'}])));
		}
		return body;
	}

	function txClass(n, c) {
		var cid = ++classN;
		var name = n.id ? (n.id.$orig || n.id.name) : '$$class' + cid;
		/* An anonymous class is named where it stands, "" elsewhere. */
		var want = n.id ? null : n.$named === undefined ? '' : n.$named;
		var superVar = n.superClass ? '$$super' + cid : null;
		var cls = '$$c' + cid; /* the class, for super, whatever shadows its name */
		var initVar = null;
		var members = n.body.body, i, m;
		var pn = privateNames(members), priv = pn.names;
		for (i = 0; i < members.length; i++) {
			m = members[i];
			if (m.type === 'PropertyDefinition' && !m.static)
				initVar = '$$init' + cid;
		}
		if (pn.inst.length)
			initVar = '$$init' + cid;
		classes.push(priv);
		var C = function () { return id(name); };
		var out = [], ctor = null, fields = [], initPlaced = false;
		/* Static fields and blocks run once every method is defined (and
		 * the static private methods' brands are on the class), in their
		 * order: in a function declared where the first of them is,
		 * called last. */
		var statics = [], staticVar = '$$static' + cid, staticPlaced = false;
		var placeStatics = function (from) {
			if (!staticPlaced) {
				staticPlaced = true;
				out.push({type: 'FunctionDeclaration', id: id(staticVar), params: [],
					  body: block(statics), loc: from.loc});
			}
		};
		if (pn.decl)
			out.push(pn.decl);
		for (i = 0; i < members.length; i++)
			if (members[i].kind === 'constructor')
				ctor = members[i];
		var ctorFn;
		if (ctor) {
			ctorFn = {type: 'FunctionDeclaration', id: id(name), params: ctor.value.params,
				  body: ctor.value.body, loc: ctor.loc};
		} else {
			var implicit = [];
			if (superVar)
				implicit.push(stmt({type: 'CallExpression', callee: {type: 'Super'},
						    arguments: [{type: 'SpreadElement',
								 argument: raw('arguments')}]}));
			ctorFn = {type: 'FunctionDeclaration', id: id(name), params: [],
				  body: block(implicit), loc: n.loc};
		}
		ctorFn.$ctor = {name: name, derived: !!superVar, cls: cls, init: initVar,
				nt: '$$newt' + cid, alloc: '$$alloc' + cid, rv: '$$rv' + cid,
				label: '$$body' + cid,
				display: want === null ? name : typeof want === 'string' ? want : ''};
		ctorFn.$home = {cls: cls, isStatic: false};
		/* Class bodies are strict code. */
		out.unshift({type: 'ExpressionStatement', expression: lit('use strict'),
			  directive: 'use strict'});
		out.push(varDecl([[id(cls), C()]]));
		/* A renamed class binding is still the class inside its body
		 * (static initialisers run before the outer one is assigned). */
		if (n.id && n.id.name !== name)
			out.push(varDecl([[id(n.id.name), C()]]));
		out.push(stmt(rtCall('defineClass', superVar ? [C(), lit(true), id(superVar)]
							     : [C(), lit(false)]), n));
		if (want !== null)
			out.push(stmt(rtCall('fname', [C()].concat(nameArgs(want))), n));
		if (!ctor)
			out.push(ctorFn);
		for (i = 0; i < members.length; i++) {
			m = members[i];
			var home = {cls: cls, isStatic: !!m.static || m.type === 'StaticBlock'};
			if (m.type === 'MethodDefinition') {
				if (m.kind === 'constructor') {
					out.push(ctorFn);
					continue;
				}
				var fn = {type: 'FunctionExpression', id: null, params: m.value.params,
					  body: m.value.body, async: m.value.async,
					  generator: m.value.generator, loc: m.value.loc, $home: home,
					  $method: true, start: m.value.start};
				/* The runtime names methods after their keys; an
				 * identifier key names it for free. */
				if (m.kind === 'method' && !m.computed && m.key.type === 'Identifier')
					fn.$named = m.key.name;
				var target = m.static ? C() : member(C(), 'prototype');
				var kind = m.kind === 'get' || m.kind === 'set' ? m.kind : 'method';
				if (m.key.type === 'PrivateIdentifier')
					out.push(stmt(rtCall('pdef', [keyOf(m), fn, lit(kind)]), m));
				else
					out.push(stmt(rtCall('methods', [target, arrayOf([arrayOf([
						keyOf(m), fn, lit(kind)])])]), m));
			} else if (m.type === 'PropertyDefinition') {
				var key = keyOf(m);
				if (m.computed) {
					/* The key is found once, when the class is. */
					var kt = '$$k' + (++tempN);
					out.push(varDecl([[id(kt), rtCall('propertyKey', [key])]], m));
					key = id(kt);
				}
				var hidden = m.key.type === 'PrivateIdentifier';
				nameIt(m.value, hidden ? '#' + m.key.name : m.computed ? {key: key}
					: m.key.type === 'Identifier' ? m.key.name : String(m.key.value));
				if (m.static) {
					var v = m.value ? call(member(fnExpr([], [ret(m.value, m.value)], m.value),
								      'call'), [C()]) : void0();
					if (v.callee) {
						v.callee.object.$home = home;
						v.callee.object.$noNT = true;
					}
					placeStatics(m);
					statics.push(stmt(hidden ? rtCall('padd', [C(), key, v])
						: rtCall('field', [C(), key, v, lit(false)]), m));
				} else {
					var self = {type: 'ThisExpression'};
					fields.push(stmt(hidden ? rtCall('padd', [self, key, m.value || void0()])
						: rtCall('field', [self, key, m.value || void0(), lit(false)]), m));
					if (!initPlaced) {
						initPlaced = true;
						out.push({type: 'FunctionDeclaration', id: id(initVar), params: [],
							  body: block(fields), loc: m.loc, $home: home,
							  $noNT: true});
					}
				}
			} else if (m.type === 'StaticBlock') {
				var sb = fnExpr([], tdzPrelude(m).concat(m.body), m);
				sb.$home = home;
				sb.$noNT = true;
				placeStatics(m);
				statics.push(stmt(call(member(sb, 'call'), [C()]), m));
			}
		}
		/* Instances get the brands of the private methods first. */
		if (pn.inst.length) {
			fields.unshift(stmt(rtCall('pbrand', [{type: 'ThisExpression'}, arrayOf(pn.inst)])));
			if (!initPlaced)
				out.push({type: 'FunctionDeclaration', id: id(initVar), params: [],
					  body: block(fields), loc: n.body.loc,
					  $home: {cls: cls, isStatic: false}, $noNT: true});
		}
		if (pn.stat.length) {
			statics.unshift(stmt(rtCall('pbrand', [C(), arrayOf(pn.stat)])));
			placeStatics(n.body);
		}
		if (staticPlaced)
			out.push(stmt(call(id(staticVar), [])));
		out.push(ret(C()));
		if (n.$heritageName)
			out.splice(out.length && out[0].directive ? 1 : 0, 0,
				   stmt(assign(id(n.$heritageName), C())));
		/* An arrow: computed keys see the this, arguments, new.target and
		 * super around the class. The heritage is strict code too. */
		var iife = arrowFn(superVar ? [id(superVar)] : [], out, n);
		var heritage = n.superClass;
		if (heritage && heritage.type !== 'Identifier' && heritage.type !== 'MemberExpression')
			heritage = call(arrowFn([], [{type: 'ExpressionStatement', expression: lit('use strict'),
						      directive: 'use strict'}, ret(heritage, heritage)],
						heritage), [], heritage);
		var result = tx(heritageScope(n, call(iife, superVar ? [heritage] : [], n)), c);
		classes.pop();
		return result;
	}

	/* ---- loops */

	/* Rewrites, in a loop body that becomes a function, what leaves the
	 * body: continue returns, break returns $$rt.BREAK, return returns
	 * {v: value}, and a jump to an outer label {b: label} or {c: label}. */
	function rewriteJumps(body, label, info) {
		var inner = {};
		function walk(n, loops, switches) {
			if (!n || typeof n.type !== 'string' || isFunction(n) ||
			    n.type === 'ClassDeclaration' || n.type === 'ClassExpression')
				return n;
			switch (n.type) {
			case 'ContinueStatement':
				if (!n.label ? loops === 0 : n.label.name === label)
					return at({type: 'ReturnStatement', argument: null}, n);
				if (n.label && !inner[n.label.name]) {
					info.outer.push(['c', n.label.name]);
					return ret(objectOf([prop('c', lit(n.label.name))]), n);
				}
				return n;
			case 'BreakStatement':
				if (!n.label ? loops === 0 && switches === 0 : n.label.name === label)
					return ret(rt('BREAK'), n);
				if (n.label && !inner[n.label.name]) {
					info.outer.push(['b', n.label.name]);
					return ret(objectOf([prop('b', lit(n.label.name))]), n);
				}
				return n;
			case 'ReturnStatement':
				info.returns = true;
				return ret(objectOf([prop('v', n.argument || void0())]), n);
			case 'LabeledStatement':
				inner[n.label.name] = true;
				break;
			}
			var l = loops + (isLoop(n) ? 1 : 0);
			var s = switches + (n.type === 'SwitchStatement' ? 1 : 0);
			for (var k in n) {
				if (k === 'loc' || k.charAt(0) === '$' || !hasOwn.call(n, k))
					continue;
				var v = n[k];
				if (v instanceof Array) {
					for (var i = 0; i < v.length; i++)
						v[i] = walk(v[i], l, s);
				} else if (v && typeof v.type === 'string') {
					n[k] = walk(v, l, s);
				}
			}
			return n;
		}
		return walk(body, 0, 0);
	}

	/* The body of a loop whose bindings closures capture, as a function
	 * called once per iteration with those bindings as parameters. */
	/* The names among names that code under n assigns to. */
	function assigned(n, names, out) {
		if (!n || typeof n.type !== 'string')
			return out;
		var t = n.type === 'AssignmentExpression' ? n.left
			: n.type === 'UpdateExpression' ? n.argument : null;
		if (t && t.type === 'Identifier' && names.indexOf(t.name) >= 0 &&
		    out.indexOf(t.name) < 0)
			out.push(t.name);
		children(n, function (child) { assigned(child, names, out); });
		return out;
	}

	/* var declarations in a loop body that becomes a function belong to
	 * the function around the loop: declared there (as temporaries are),
	 * they become assignments in the body. */
	function hoistVars(n, c) {
		function names(p) {
			var out = boundNames(p, []);
			for (var i = 0; i < out.length; i++)
				if (c.temps.indexOf(out[i]) < 0)
					c.temps.push(out[i]);
		}
		function assignments(decl) {
			var list = [];
			for (var i = 0; i < decl.declarations.length; i++) {
				var d = decl.declarations[i];
				names(d.id);
				if (d.init)
					list.push(at(assign(d.id, d.init), d));
			}
			return list;
		}
		function walk(x) {
			if (!x || typeof x.type !== 'string' || isFunction(x) ||
			    x.type === 'ClassDeclaration' || x.type === 'ClassExpression')
				return x;
			if (x.type === 'VariableDeclaration' && x.kind === 'var') {
				var list = assignments(x);
				return list.length ? stmt(seq(list), x) : at({type: 'EmptyStatement'}, x);
			}
			if (x.type === 'ForStatement' && x.init && x.init.type === 'VariableDeclaration' &&
			    x.init.kind === 'var') {
				var init = assignments(x.init);
				x.init = init.length ? seq(init) : null;
			}
			if ((x.type === 'ForInStatement' || x.type === 'ForOfStatement') &&
			    x.left.type === 'VariableDeclaration' && x.left.kind === 'var') {
				names(x.left.declarations[0].id);
				x.left = x.left.declarations[0].id;
			}
			for (var k in x) {
				if (k === 'loc' || k.charAt(0) === '$' || !hasOwn.call(x, k))
					continue;
				var v = x[k];
				if (v instanceof Array) {
					for (var i = 0; i < v.length; i++)
						v[i] = walk(v[i]);
				} else if (v && typeof v.type === 'string') {
					x[k] = walk(v);
				}
			}
			return x;
		}
		return walk(n);
	}

	function wrapBody(loop, params, args, c, backTo) {
		var label = loop.$label || null;
		var info = {outer: [], returns: false};
		loop.body = hoistVars(loop.body, c);
		var names = [];
		for (var p = 0; p < params.length; p++)
			if (params[p].type === 'Identifier')
				names.push(params[p].name);
		/* A for loop's own variables that the body changes are copied
		 * back after each turn, for the update and the next turn. */
		var changed = loop.type === 'ForStatement' ? assigned(loop.body, names, []) : [];
		var body = rewriteJumps(loop.body, label, info);
		var stmts = body.type === 'BlockStatement' ? tdzPrelude(body).concat(body.body) : [body];
		var back = [];
		if (changed.length) {
			var box = temp(c), save = [];
			for (var k = 0; k < changed.length; k++) {
				save.push(stmt(assign(member(id(box), lit(changed[k])), id(changed[k]))));
				back.push(stmt(assign(backTo ? backTo(changed[k]) : id(changed[k]),
						      member(id(box), lit(changed[k])))));
			}
			stmts = [stmt(assign(id(box), objectOf([]))),
				 {type: 'TryStatement', block: block(stmts), handler: null,
				  finalizer: block(save)}];
		}
		var fn = arrowFn(params, stmts, loop.body);
		var r = temp(c);
		var checks = [at({type: 'IfStatement', test: bin('===', id(r), rt('BREAK')),
				  consequent: {type: 'BreakStatement', label: null}, alternate: null},
				 loop.body)];
		for (var i = 0; i < info.outer.length; i++) {
			var o = info.outer[i];
			checks.push({type: 'IfStatement',
				     test: bin('===', member(id(r), o[0]), lit(o[1])),
				     consequent: {type: o[0] === 'b' ? 'BreakStatement' : 'ContinueStatement',
						  label: id(o[1])},
				     alternate: null});
		}
		if (info.returns)
			checks.push(ret(member(id(r), 'v')));
		/* The box, a temporary of the enclosing function, is filled in
		 * the body's finally and read back here. */
		var callIt = stmt(assign(id(r), call(fn, args)), loop.body);
		return block([callIt].concat(back, [{type: 'IfStatement', test: bin('!==', id(r), void0()),
						     consequent: block(checks), alternate: null}]),
			     loop.body);
	}

	function boundNames(p, out) {
		switch (p.type) {
		case 'Identifier': out.push(p.name); break;
		case 'ObjectPattern':
			for (var i = 0; i < p.properties.length; i++)
				boundNames(p.properties[i].type === 'RestElement' ? p.properties[i].argument
										  : p.properties[i].value, out);
			break;
		case 'ArrayPattern':
			for (var j = 0; j < p.elements.length; j++)
				if (p.elements[j])
					boundNames(p.elements[j], out);
			break;
		case 'AssignmentPattern': boundNames(p.left, out); break;
		case 'RestElement': boundNames(p.argument, out); break;
		}
		return out;
	}

	function txFor(n, c) {
		if (n.$perIter)
			return txForEach(n, c);
		if (n.$wrap) {
			n.$wrap = false;
			var names = [];
			if (n.init && n.init.type === 'VariableDeclaration' && n.init.kind !== 'var')
				for (var i = 0; i < n.init.declarations.length; i++)
					boundNames(n.init.declarations[i].id, names);
			var ps = [], as = [];
			for (var j = 0; j < names.length; j++) {
				ps.push(id(names[j]));
				as.push(id(names[j]));
			}
			n.body = wrapBody(n, ps, as, c);
		}
		return at({type: 'ForStatement', init: n.init ? txForInit(tdzHead(n), c) : null,
			   test: n.test ? tx(n.test, c) : null, update: n.update ? tx(n.update, c) : null,
			   body: tx(n.body, c)}, n);
	}

	/* A for loop whose head's closures capture its lets: each turn, the
	 * update, the test and the body run in a function whose parameters
	 * are that iteration's copies, taken from and given back to a box;
	 * the init's own bindings (which its closures keep) are separate:
	 *   for (var i = 0, $$b = {i: i}, $$f = true; ;) {
	 *     $$r = (i => { try { if ($$f) $$f = false; else UPDATE;
	 *                         if (!TEST) break; BODY } finally {...} })($$b.i);
	 *     $$b.i = ...; if ($$r !== undefined) ... } */
	function txForEach(n, c) {
		n.$perIter = n.$wrap = false;
		var names = [];
		for (var i = 0; i < n.init.declarations.length; i++)
			boundNames(n.init.declarations[i].id, names);
		var box = temp(c), first = temp(c), ps = [], as = [], props = [];
		for (var j = 0; j < names.length; j++) {
			ps.push(id(names[j]));
			as.push(member(id(box), lit(names[j])));
			props.push(prop(names[j], id(names[j])));
		}
		var turn = [{type: 'IfStatement', test: id(first),
			     consequent: stmt(assign(id(first), lit(false))),
			     alternate: n.update ? stmt(n.update, n.update) : null}];
		if (n.test)
			turn.push(at({type: 'IfStatement',
				      test: {type: 'UnaryExpression', operator: '!', prefix: true,
					     argument: n.test},
				      consequent: {type: 'BreakStatement', label: null}, alternate: null},
				     n.test));
		turn.push(n.body);
		var loop = {type: 'ForStatement', body: block(turn, n.body), $label: n.$label,
			    loc: n.loc};
		var body = wrapBody(loop, ps, as, c, function (name) {
			return member(id(box), lit(name));
		});
		var init = {type: 'VariableDeclaration', kind: 'let', loc: n.init.loc,
			    declarations: tdzHead(n).declarations.concat([
				    {type: 'VariableDeclarator', id: id(box), init: objectOf(props)},
				    {type: 'VariableDeclarator', id: id(first), init: lit(true)}])};
		return at({type: 'ForStatement', init: txForInit(init, c), test: null, update: null,
			   body: tx(body, c)}, n);
	}

	function txForInit(init, c) {
		if (init.type === 'VariableDeclaration')
			return txVar(init, c, true);
		return tx(init, c);
	}

	/* The body of for (left of ...) with left bound to value each turn:
	 * a declaration becomes a var (or, when closures capture it, the
	 * body's own function parameter), a target an assignment. */
	function loopBinding(n, value, c) {
		var bind;
		if (n.left.type === 'VariableDeclaration') {
			var d = n.left.declarations[0];
			if (n.$wrap && n.left.kind !== 'var') {
				n.$wrap = false;
				n.body = wrapBody(n, [d.id], [value], c);
				bind = null;
			} else {
				bind = {type: 'VariableDeclaration', kind: 'var',
					declarations: [{type: 'VariableDeclarator', id: d.id, init: value}],
					loc: n.left.loc};
			}
		} else {
			bind = stmt(assign(n.left, value), n.left);
		}
		return bind ? block([bind, n.body], n.body) : n.body;
	}

	function txForOf(n, c) {
		if (n.await)
			return txForAwait(n, c);
		var it = '$$i' + (++tempN), step = '$$s' + (++tempN);
		/* for of steps an iterator record. */
		var value = id(step);
		var body2 = loopBinding(n, value, c);
		var head = varDecl([[id(it), rtCall('iterate', [n.right])], [id(step), null]], n);
		var next = call(member(id(it), 's'), []);
		var test = seq([assign(id(step), next), {type: 'UnaryExpression', operator: '!',
							 prefix: true, argument: member(id(it), 'done')}]);
		var loop = {type: 'ForStatement', init: null, test: test,
			    update: null, body: body2, loc: n.loc, $wrap: false, $label: n.$label};
		var lowered = txFor(loop, c);
		if (n.$label)
			lowered = {type: 'LabeledStatement', label: id(n.$label), body: lowered};
		/* A loop left early closes its iterator (a generator's finally
		 * blocks run), as the specification has it: after a throw,
		 * whatever its return does, the throw goes on. */
		return block([txVar(head, c, true),
			      {type: 'TryStatement', block: block([lowered]),
			       handler: abortable(null, [it]).handler,
			       finalizer: block([stmt(call(member(id(it), 'e'), []))])}], n);
	}

	/* for await (x of v) body, as ES2022 14.7.5 has it:
	 *   var $$i = $$rt.asyncRecord(v);
	 *   try { for (; $$rt.asyncStep($$i);) { x = $$i.v; body } }
	 *   catch ($$e) { $$rt.asyncAbort($$i, $$e); }
	 *   finally { $$rt.asyncLeave($$i); }
	 * The record reads next once; leaving the body or its binding by a
	 * throw closes the iterator and keeps the throw, leaving it by break
	 * or return closes it and reports what its return does wrong. */
	function txForAwait(n, c) {
		var rec = '$$i' + (++tempN), e = '$$e' + (++tempN);
		var value = member(id(rec), 'v');
		var body = loopBinding(n, value, c);
		var head = varDecl([[id(rec), rtCall('asyncRecord', [n.right])]], n);
		var loop = {type: 'ForStatement', init: null, test: rtCall('asyncStep', [id(rec)]),
			    update: null, body: body, loc: n.loc, $wrap: false, $label: n.$label};
		var lowered = txFor(loop, c);
		if (n.$label)
			lowered = {type: 'LabeledStatement', label: id(n.$label), body: lowered};
		return block([txVar(head, c, true),
			      {type: 'TryStatement', block: block([lowered]),
			       handler: {type: 'CatchClause', param: id(e),
					 body: block([stmt(rtCall('asyncAbort', [id(rec), id(e)]))])},
			       finalizer: block([stmt(rtCall('asyncLeave', [id(rec)]))])}], n);
	}

	function txForIn(n, c) {
		var left = n.left;
		if (left.type === 'VariableDeclaration') {
			var d = left.declarations[0];
			if (d.id.type !== 'Identifier') {
				var t = '$$k' + (++tempN);
				n.body = block([{type: 'VariableDeclaration', kind: 'var',
						 declarations: [{type: 'VariableDeclarator', id: d.id,
								 init: id(t)}]}, n.body], n.body);
				d = {type: 'VariableDeclarator', id: id(t), init: null};
			}
			if (n.$wrap && left.kind !== 'var') {
				n.$wrap = false;
				n.body = wrapBody(n, [id(d.id.name)], [id(d.id.name)], c);
			}
			left = {type: 'VariableDeclaration', kind: 'var',
				declarations: [{type: 'VariableDeclarator', id: d.id, init: null}]};
		} else if (left.type !== 'Identifier' && left.type !== 'MemberExpression' ||
			   guarded(left)) {
			var t2 = '$$k' + (++tempN);
			n.body = block([stmt(assign(left, id(t2)), left), n.body], n.body);
			left = varDecl([[id(t2), null]]);
		} else {
			left = tx(left, c);
		}
		return at({type: 'ForInStatement', left: left, right: tx(n.right, c),
			   body: tx(n.body, c)}, n);
	}

	function txWhile(n, c) {
		if (n.$wrap) {
			n.$wrap = false;
			n.body = wrapBody(n, [], [], c);
		}
		return at({type: n.type, test: tx(n.test, c), body: tx(n.body, c)}, n);
	}

	function txVar(n, c, inFor) {
		var pairs = [];
		for (var i = 0; i < n.declarations.length; i++) {
			var d = n.declarations[i];
			var init;
			if (d.init && d.id.type === 'Identifier')
				nameIt(d.init, d.id.$orig || d.id.name);
			init = d.init ? tx(d.init, c) : null;
			if (d.id.type === 'Identifier') {
				/* let in a loop body starts undefined on every turn. */
				if (!init && n.kind === 'let' && !inFor)
					init = void0();
				pairs.push([d.id, init]);
			} else {
				destructure(d.id, init, c, pairs, true);
			}
		}
		if (pairs.$records && !inFor)
			return destructureStatements(pairs, true, n);
		return declOf(pairs, n);
	}

	/* ---- optional chains */

	/* del: the chain is delete's operand, which short-circuits to true;
	 * keep: a temporary that gets the object of the chain's last property
	 * access, the this of a call of the (parenthesized) chain. */
	function txChain(n, c, del, keep) {
		var links = [], e = n;
		while (e.type === 'MemberExpression' && e.object.type !== 'Super' ||
		       e.type === 'CallExpression' && e.callee.type !== 'Super') {
			links.unshift(e);
			e = e.type === 'MemberExpression' ? e.object : e.callee;
		}
		function link(obj, i, thisT) {
			var L = links[i], next = links[i + 1];
			if (L.type === 'MemberExpression' && isPrivate(L)) {
				var P = privateKey(L.property);
				if (next && next.type === 'CallExpression') {
					var pt = temp(c);
					return build(rtCall('pget', [assign(id(pt), obj), P]), i + 1, id(pt));
				}
				return build(rtCall('pget', [obj, P]), i + 1, null);
			}
			if (L.type === 'MemberExpression') {
				var prop = L.property.type === 'PrivateIdentifier' ? privateKey(L.property)
					: L.computed ? tx(L.property, c) : L.property;
				var computed = L.computed || L.property.type === 'PrivateIdentifier';
				if (next && next.type === 'CallExpression' && next.optional) {
					var ot = temp(c);
					return build(at({type: 'MemberExpression', object: assign(id(ot), obj),
							 property: prop, computed: computed}, L), i + 1, id(ot));
				}
				var m = at({type: 'MemberExpression',
					    object: keep && i === links.length - 1 ? assign(id(keep), obj) : obj,
					    property: prop, computed: computed}, L);
				if (del && i === links.length - 1)
					return {type: 'UnaryExpression', operator: 'delete', prefix: true,
						argument: m};
				return build(m, i + 1, null);
			}
			return build(makeCall(obj, L.arguments, c, thisT, L), i + 1, null);
		}
		function build(obj, i, thisT) {
			if (i === links.length)
				return obj;
			if (links[i].optional) {
				var t = temp(c);
				return cond(bin('==', assign(id(t), obj), lit(null)),
					    del ? lit(true) : void0(), link(id(t), i, thisT));
			}
			return link(obj, i, thisT);
		}
		/* The chain starts at super.m, or at a parenthesized chain, that
		 * the first link calls: the call gets their this. */
		if (links[0].type === 'CallExpression') {
			if (e.type === 'MemberExpression')
				return build(tx(e, c), 0, thisOf(c));
			if (e.type === 'ChainExpression' && e.expression.type === 'MemberExpression') {
				var kt = temp(c);
				return build(txChain(e.expression, c, false, kt), 0, id(kt));
			}
		}
		return build(tx(e, c), 0, null);
	}

	/* ---- object literals */

	/* __proto__: v in a literal sets the prototype (not a shorthand,
	 * a method or a computed key). */
	function protoSetter(p) {
		return p.type === 'Property' && !p.computed && !p.shorthand && !p.method &&
		       p.kind === 'init' && (p.key.type === 'Identifier' ? p.key.name
					     : p.key.value) === '__proto__';
	}

	/* Whether super appears in n outside the ordinary functions in it. */
	function usesSuper(n) {
		if (!n || typeof n.type !== 'string')
			return false;
		if (n.type === 'Super')
			return true;
		if (n.type === 'FunctionExpression' || n.type === 'FunctionDeclaration')
			return false;
		var found = false;
		children(n, function (child) { found = found || usesSuper(child); });
		return found;
	}

	/* An object literal whose methods use super: each evaluation binds
	 * its object, their home, in a function of its own,
	 * (($$h) => $$h = {...})(). */
	function txHomeObject(n, c) {
		var h = '$$h' + (++tempN);
		for (var i = 0; i < n.properties.length; i++) {
			var p = n.properties[i];
			if (p.type === 'Property' && (p.method || p.kind === 'get' || p.kind === 'set'))
				p.value.$home = {obj: h};
		}
		var copy = {};
		for (var k in n)
			if (hasOwn.call(n, k))
				copy[k] = n[k];
		copy.$homeBound = true;
		var wrapper = {type: 'ArrowFunctionExpression', id: null, params: [id(h)],
			       body: assign(id(h), copy), expression: true, async: false,
			       generator: false, loc: n.loc};
		return tx(call(wrapper, [], n), c);
	}

	function txObject(n, c) {
		var simple = true, i, p;
		if (!n.$homeBound) {
			for (i = 0; i < n.properties.length; i++) {
				p = n.properties[i];
				if (p.type === 'Property' && (p.method || p.kind === 'get' || p.kind === 'set') &&
				    (usesSuper(p.value.body) || usesSuper({type: 'X', params: p.value.params})))
					return txHomeObject(n, c);
			}
		}
		for (i = 0; i < n.properties.length; i++) {
			p = n.properties[i];
			if (p.type === 'SpreadElement' || p.computed || p.kind !== 'init' || protoSetter(p))
				simple = false;
		}
		if (simple) {
			var props = [];
			for (i = 0; i < n.properties.length; i++)
				props.push(txProperty(n.properties[i], c));
			return at(objectOf(props), n);
		}
		/* In order: literal runs, computed keys and spreads. */
		var t = temp(c), parts = [], run = null, first = true;
		for (i = 0; i < n.properties.length; i++) {
			p = n.properties[i];
			if (p.type === 'SpreadElement') {
				if (first)
					parts.push(assign(id(t), objectOf([])));
				first = false;
				run = null;
				parts.push(rtCall('assign', [id(t), tx(p.argument, c)]));
			} else if (protoSetter(p)) {
				if (first)
					parts.push(assign(id(t), objectOf([])));
				first = false;
				run = null;
				parts.push(rtCall('proto', [id(t), tx(p.value, c)]));
			} else if (p.computed || p.kind !== 'init' || !first && !run) {
				if (first)
					parts.push(assign(id(t), objectOf([])));
				first = false;
				run = null;
				var key, name;
				if (p.computed) {
					/* A property key before the value is evaluated,
					 * held for the name of the function it keys. */
					var kt = temp(c);
					key = assign(id(kt), rtCall('propertyKey', [tx(p.key, c)]));
					name = {key: id(kt)};
				} else {
					key = lit(p.key.type === 'Identifier' ? p.key.name : p.key.value);
					name = String(key.value);
				}
				/* Accessors are named by the runtime, "get" or "set" before the key. */
				var value = p.kind === 'init' ? txValue(p, c, name)
					: txFunction(methodOf(p.value, undefined), c);
				if (p.kind === 'get' || p.kind === 'set')
					parts.push(rtCall('accessor', [id(t), key, lit(p.kind), value, lit(true)]));
				else
					parts.push(rtCall('field', [id(t), key, value, lit(false)]));
			} else {
				if (!run) {
					run = objectOf([]);
					parts.push(assign(id(t), run));
					first = false;
				}
				run.properties.push(txProperty(p, c));
			}
		}
		parts.push(id(t));
		return seq(parts);
	}

	/* A method of an object literal or class, named name (undefined: by
	 * the runtime). */
	function methodOf(v, name) {
		return {type: 'FunctionExpression', id: null, params: v.params, body: v.body,
			async: v.async, generator: v.generator, loc: v.loc, start: v.start,
			$method: true, $named: name, $home: v.$home};
	}

	/* The value of an object literal's property p, a function or class
	 * named name (by default its key); bare: a method that the literal
	 * itself will print as a method. */
	function txValue(p, c, name, bare) {
		var v = p.value;
		if (name === undefined)
			name = p.key.type === 'Identifier' ? p.key.name : String(p.key.value);
		if (p.method) {
			var m = methodOf(v, name);
			m.$bare = bare;
			return txFunction(m, c);
		}
		/* __proto__: v sets the prototype; it names nothing. */
		if (p.computed || name !== '__proto__')
			nameIt(v, name);
		return tx(v, c);
	}

	function txProperty(p, c) {
		var key = p.key;
		if (key.type === 'Literal' && typeof key.value === 'number')
			key = lit(key.value);
		else if (key.type === 'Literal')
			key = lit(String(key.value));
		else
			key = id(key.name);
		/* A method with an identifier key stays one: Duktape names it. */
		var bare = p.method && !p.value.generator && !p.value.async && key.type === 'Identifier' &&
			   methodKey(key.name);
		return at({type: 'Property', key: key, value: txValue(p, c, undefined, bare),
			   kind: p.kind, computed: false, method: bare}, p);
	}

	/* ---- templates */

	function txTemplate(n, c) {
		var q = n.quasis, first = lit(q[0].value.cooked), args = [];
		for (var i = 0; i < n.expressions.length; i++) {
			args.push(tx(n.expressions[i], c));
			if (q[i + 1].value.cooked !== '')
				args.push(lit(q[i + 1].value.cooked));
		}
		if (!args.length)
			return at(first, n);
		return call(member(first, 'concat'), args, n);
	}

	function txTagged(n, c) {
		var q = n.quasi.quasis, cooked = [], rawv = [];
		for (var i = 0; i < q.length; i++) {
			cooked.push(q[i].value.cooked === null ? void0() : lit(q[i].value.cooked));
			rawv.push(lit(q[i].value.raw));
		}
		/* One strings array per site and script evaluation: a variable
		 * of the outermost function. */
		var top = c;
		while (top.parent)
			top = top.parent;
		var site = temp(top);
		var args = [logical('||', id(site), assign(id(site), rtCall('template',
			[arrayOf(cooked), arrayOf(rawv)])))];
		var exprs = txList(n.quasi.expressions, c);
		return call(tx(n.tag, c), args.concat(exprs), n);
	}

	/* ---- assignment forms */

	/* A reference that can be read and then written: the target and the
	 * setup that evaluates its parts once. */
	function reference(left, c) {
		if (left.type === 'Identifier')
			return {get: function () { return id(left.name); },
				set: function () { return id(left.name); }};
		var obj = tx(left.object, c), ot = temp(c), key, kt = null;
		if (left.property.type === 'PrivateIdentifier') {
			key = privateKey(left.property);
		} else if (left.computed) {
			kt = temp(c);
			key = tx(left.property, c);
		} else {
			key = lit(left.property.name);
		}
		var used = false;
		return {
			get: function () {
				if (used)
					return member(id(ot), kt ? id(kt) : key);
				used = true;
				return member(assign(id(ot), obj), kt ? assign(id(kt), key) : key);
			},
			set: function () { return member(id(ot), kt ? id(kt) : key); }
		};
	}

	/* [a, b] = v where a statement may stand: the statement form of
	 * destructureStatements. */
	function destructureStatement(n, c) {
		var pairs = [], t = temp(c);
		pairs.push([id(t), tx(n.right, c)]);
		destructure(n.left, id(t), c, pairs, false);
		return destructureStatements(pairs, false, n);
	}

	/* [a, b] = v as an expression: the statement form in a function of its
	 * own, which sees this, arguments and super as an arrow does (yield
	 * and await are calls, so they work in it), returning v. */
	function destructureExpression(n, c) {
		var g = new Fn(c, true), pairs = [], t = temp(g);
		pairs.push([id(t), tx(n.right, g)]);
		destructure(n.left, id(t), g, pairs, false);
		var body = declarations(g).concat(destructureStatements(pairs, false, n), [ret(id(t))]);
		return call({type: 'FunctionExpression', id: null, params: [], body: block(body)}, []);
	}

	function txAssign(n, c) {
		var op = n.operator;
		/* (x) = function () {} names nothing: the parentheses (which the
		 * parser drops) make the target no IdentifierRef. */
		if (n.left.type === 'Identifier' && n.left.start === n.start &&
		    (op === '=' || op === '||=' || op === '&&=' || op === '??='))
			nameIt(n.right, n.left.$orig || n.left.name);
		if (guarded(n.left))
			return op === '=' ? tdzWrite(n.left, tx(n.right, c)) : txGuardedUpdate(n, c);
		/* A pattern that assigns to arguments stays inline, where the
		 * name means the function's own (without closing on a throw). */
		if (op === '=' && hasArrayPattern(n.left) && !mentions(n.left, 'arguments'))
			return at(destructureExpression(n, c), n);
		if (op === '=' && (n.left.type === 'ObjectPattern' || n.left.type === 'ArrayPattern')) {
			var pairs = [], value = tx(n.right, c);
			var t = temp(c);
			pairs.push([id(t), value]);
			destructure(n.left, id(t), c, pairs, false);
			var list = [];
			for (var i = 0; i < pairs.length; i++)
				list.push(pairs[i][0] ? writeTo(pairs[i][0], pairs[i][1]) : pairs[i][1]);
			list.push(id(t));
			return seq(list);
		}
		if (isSuperMember(n.left))
			return txSuperAssign(n, c);
		if (op === '**=' || op === '||=' || op === '&&=' || op === '??=') {
			var ref = reference(n.left, c), right = tx(n.right, c);
			if (op === '**=') {
				/* The read sets up the target's parts, so it goes first. */
				var pw = temp(c);
				return at(seq([assign(id(pw), call(member(id('Math'), 'pow'), [ref.get(), right])),
					       assign(ref.set(), id(pw))]), n);
			}
			if (op === '||=' || op === '&&=')
				return at(logical(op.slice(0, 2), ref.get(), assign(ref.set(), right)), n);
			var v = temp(c);
			return at(cond(bin('!=', assign(id(v), ref.get()), lit(null)), id(v),
				       assign(ref.set(), right)), n);
		}
		return at(assign(tx(n.left, c), tx(n.right, c), op), n);
	}

	/* ---- the temporal dead zone and immutable bindings (see tdzRef) */

	var usesTdz = false;

	function nameOf(n) { return lit(n.$orig || n.name); }

	/* The value of reference n, which throws while its binding is
	 * uninitialised. */
	function tdzRead(n) {
		if (n.$tdz === 'always')
			return at(rtCall('tdz', [nameOf(n)]), n);
		if (n.$tdz === 'check') {
			usesTdz = true;
			return at(cond(bin('===', id(n.name), id('$$tdz')), rtCall('tdz', [nameOf(n)]),
				       id(n.name)), n);
		}
		return n;
	}

	/* Assigning value (lowered) to identifier n, a reference that is
	 * checked or to an immutable binding: the value is evaluated first,
	 * then the ReferenceError or TypeError. */
	function tdzWrite(n, value) {
		if (n.$tdz === 'always')
			return at(rtCall('tdz', [nameOf(n), value]), n);
		if (n.$tdz === 'check')
			usesTdz = true;
		if (n.$ro)
			return at(rtCall('constSet', n.$tdz === 'check' ? [value, nameOf(n), id(n.name)]
									: [value, nameOf(n)]), n);
		return at(assign(id(n.name), rtCall('tdzSet', [value, nameOf(n), id(n.name)])), n);
	}

	function guarded(n) {
		return n && n.type === 'Identifier' && (n.$tdz || n.$ro);
	}

	/* target = value, for a pattern's pairs and plain assignment. */
	function writeTo(target, value) {
		return guarded(target) ? tdzWrite(target, value) : assign(target, value);
	}

	/* An assignment or update of a guarded identifier: read (checked),
	 * then written (checked again only for a const's TypeError). */
	function txGuardedUpdate(n, c) {
		var x = n.type === 'UpdateExpression' ? n.argument : n.left;
		var read = tdzRead(x), op = n.operator;
		var plain = {type: 'Identifier', name: x.name, $orig: x.$orig, $ro: x.$ro};
		function put(v) { return x.$ro ? tdzWrite(plain, v) : assign(id(x.name), v); }
		if (n.type === 'UpdateExpression') {
			if (x.$ro)
				return at(put({type: 'UnaryExpression', operator: '+', prefix: true,
					       argument: read}), n);
			return at(seq([read, {type: 'UpdateExpression', operator: op, prefix: n.prefix,
					      argument: id(x.name)}]), n);
		}
		var right = tx(n.right, c);
		if (op === '||=' || op === '&&=')
			return at(logical(op.slice(0, 2), read, put(right)), n);
		if (op === '??=')
			return at(cond(bin('!=', read, lit(null)), id(x.name), put(right)), n);
		if (op === '**=')
			return at(put(call(member(id('Math'), 'pow'), [read, right])), n);
		return at(put(bin(op.slice(0, -1), read, right)), n);
	}

	/* A lowered class whose heritage has closures naming the class: its
	 * own name for them starts uninitialised (see analyze). */
	function heritageScope(n, lowered) {
		if (!n.$heritageName)
			return lowered;
		usesTdz = true;
		return call(arrowFn([], [varDecl([[id(n.$heritageName), id('$$tdz')]]), ret(lowered)], n),
			    []);
	}

	/* A for head's declaration, setting its uninitialised bindings up
	 * first. */
	function tdzHead(n) {
		var pre = n.init.type === 'VariableDeclaration' ? tdzPrelude(n) : [];
		if (!pre.length)
			return n.init;
		return at({type: 'VariableDeclaration', kind: n.init.kind,
			   declarations: pre[0].declarations.concat(n.init.declarations)}, n.init);
	}

	/* Sets a scope's uninitialised bindings up at its start. */
	function tdzPrelude(node) {
		var s = node.$scope;
		if (!s || !s.tdzInit)
			return [];
		usesTdz = true;
		var pairs = [];
		for (var i = 0; i < s.tdzInit.length; i++)
			pairs.push([id(s.tdzInit[i].nodes[0].name), id('$$tdz')]);
		return [varDecl(pairs, node)];
	}

	/* ---- regular expressions */

	function txRegex(n) {
		var flags = n.regex.flags, pattern = n.regex.pattern;
		if (flags.indexOf('u') >= 0 && !/\\u\{|\\p\{|\\P\{/.test(pattern))
			flags = flags.replace('u', '');
		if (/\(\?<[=!]/.test(pattern))
			unsupported(n, 'a lookbehind assertion (the engine\'s regular expressions lack it)');
		var dotAll = flags.indexOf('s') >= 0;
		if (!dotAll && !/\(\?<[A-Za-z_$]/.test(pattern))
			return at({type: 'Literal', regex: {pattern: pattern, flags: flags}}, n);
		var p = rewritePattern(pattern, dotAll, n);
		var re = at({type: 'Literal', regex: {pattern: p.pattern, flags: flags.replace('s', '')}},
			    n);
		var props = [];
		for (var k in p.groups)
			if (hasOwn.call(p.groups, k))
				props.push({type: 'Property', key: lit(k), value: lit(p.groups[k]),
					    kind: 'init', computed: false});
		if (!props.length)
			return re;
		usesNamedGroups = true;
		return rtCall('named', [re, objectOf(props)], n);
	}

	/* A pattern as the engine can take it: with dotAll, `.` outside a
	 * class is [\s\S]; named groups are numbered ones, (?<name>x) being (x)
	 * and \k<name> the group's number, and {name: number} lets the runtime
	 * put back .groups. */
	function rewritePattern(pattern, dotAll, n) {
		var out = '', groups = {}, count = 0, inClass = false, i, m;
		for (i = 0; i < pattern.length; i++) {
			var ch = pattern.charAt(i);
			if (ch === '\\') {
				out += ch + pattern.charAt(++i);
				continue;
			}
			if (ch === '[')
				inClass = true;
			else if (ch === ']')
				inClass = false;
			if (ch === '(' && !inClass) {
				if (pattern.charAt(i + 1) !== '?') {
					count++;
				} else if ((m = /^\?<([A-Za-z_$][\w$]*)>/.exec(pattern.slice(i + 1)))) {
					groups[m[1]] = ++count;
					out += '(';
					i += m[0].length;
					continue;
				}
			}
			out += ch === '.' && dotAll && !inClass ? '[\\s\\S]' : ch;
		}
		/* Back references, now that every group has its number. */
		out = out.replace(/\\k<([A-Za-z_$][\w$]*)>/g, function (all, name) {
			if (!hasOwn.call(groups, name))
				unsupported(n, 'a reference to an unknown group ' + name);
			return '\\' + groups[name];
		});
		return {pattern: out, groups: groups};
	}

	/* ---- the main switch */

	function tx(n, c) {
		var i, out;
		switch (n.type) {
		case 'Raw':
			return n;
		case 'Identifier':
			if (n.name === 'arguments')
				return argumentsOf(c, n);
			if (n.$tdz)
				return tdzRead(n);
			if (n.$globalEval)
				return at(member(rt('global'), 'eval'), n);
			return n;
		case 'ExpressionStatement':
			if (n.$cv)
				return at(stmt(assign(id(completion), tx(n.expression, c))), n);
			if (n.expression.type === 'AssignmentExpression' && n.expression.operator === '=' &&
			    hasArrayPattern(n.expression.left))
				return destructureStatement(n.expression, c);
			break;
		case 'ThisExpression':
			return at(thisOf(c), n);
		case 'Literal':
			if (n.bigint !== undefined)
				unsupported(n, 'BigInt');
			if (n.regex)
				return txRegex(n);
			return n;
		case 'FunctionDeclaration':
		case 'FunctionExpression':
		case 'ArrowFunctionExpression':
			return txFunction(n, c);
		case 'ClassDeclaration':
			return varDecl([[n.id, txClass(n, c)]], n);
		case 'ClassExpression':
			return txClass(n, c);
		case 'VariableDeclaration':
			return txVar(n, c, false);
		case 'ForStatement':
			return txFor(n, c);
		case 'ForOfStatement':
			return txForOf(n, c);
		case 'ForInStatement':
			return txForIn(n, c);
		case 'WhileStatement':
		case 'DoWhileStatement':
			return txWhile(n, c);
		case 'LabeledStatement':
			if (isLoop(n.body))
				n.body.$label = n.label.name;
			/* Its lowering puts the label on the loop inside. */
			if (n.body.type === 'ForOfStatement')
				return tx(n.body, c);
			return at({type: 'LabeledStatement', label: n.label, body: tx(n.body, c)}, n);
		case 'TryStatement':
			var handler = null;
			if (n.handler) {
				var h = n.handler, param = h.param, hb = txList(tdzPrelude(h.body).concat(h.body.body), c);
				if (!param) {
					param = id('$$e' + (++tempN));
				} else if (param.type !== 'Identifier') {
					var pname = '$$e' + (++tempN), pairs = [];
					destructure(param, id(pname), c, pairs, true);
					hb.unshift(destructureStatements(pairs, true, param));
					param = id(pname);
				}
				/* A generator's return() unwinds its body as a throw
				 * would, but no catch clause sees it. */
				if (realFn(c).gen)
					hb.unshift(stmt(rtCall('passReturn', [id(param.name)])));
				handler = at({type: 'CatchClause', param: param, body: at(block(hb), h.body)}, h);
			}
			return at({type: 'TryStatement', block: tx(n.block, c), handler: handler,
				   finalizer: n.finalizer ? tx(n.finalizer, c) : null}, n);
		case 'ReturnStatement':
			var f = realFn(c);
			if (f.ctor && f.ctor.derived && f === c)
				return at(block([stmt(assign(id(f.ctor.rv), n.argument ? tx(n.argument, c)
									     : void0()), n),
						 {type: 'BreakStatement', label: id(f.ctor.label)}]), n);
			/* An async generator awaits what it returns. */
			if (c.asyncGen && n.argument)
				return ret(rtCall('awaitValue', [tx(n.argument, c)]), n);
			return at({type: 'ReturnStatement', argument: n.argument ? tx(n.argument, c) : null},
				  n);
		case 'BlockStatement':
			return at(block(txList(tdzPrelude(n).concat(n.body), c)), n);
		case 'SwitchStatement':
			var cases = [], pre = tdzPrelude(n);
			for (i = 0; i < n.cases.length; i++)
				cases.push(at({type: 'SwitchCase', test: n.cases[i].test ? tx(n.cases[i].test, c)
											  : null,
					       consequent: txList(n.cases[i].consequent, c)}, n.cases[i]));
			var sw = at({type: 'SwitchStatement', discriminant: tx(n.discriminant, c),
				     cases: cases}, n);
			return pre.length ? block(txList(pre, c).concat([sw]), n) : sw;
		case 'ChainExpression':
			return at(txChain(n.expression, c, false), n);
		case 'UnaryExpression':
			if (n.operator === 'delete' && n.argument.type === 'ChainExpression')
				return at(txChain(n.argument.expression, c, true), n);
			/* Deleting a binding is false, initialised or not. */
			if (n.operator === 'delete' && n.argument.$tdz)
				return at({type: 'UnaryExpression', operator: 'delete', prefix: true,
					   argument: id(n.argument.name)}, n);
			if (n.operator === 'delete' && n.argument.type === 'MetaProperty')
				return at(seq([tx(n.argument, c), lit(true)]), n);
			if (n.operator === 'delete' && isSuperMember(n.argument))
				return at(seq([superRef(n.argument, c),
					       rtCall('superDelete', [])]), n);
			break;
		case 'UpdateExpression':
			if (guarded(n.argument))
				return txGuardedUpdate(n, c);
			if (isSuperMember(n.argument))
				return txSuperAssign(n, c);
			if (isPrivate(n.argument))
				return txPrivateUpdate(n, c);
			break;
		case 'MemberExpression':
			if (n.object.type === 'Super') {
				var self0 = thisOf(c);
				var key = n.computed ? tx(n.property, c) : lit(n.property.name);
				return at(rtCall('superGet', [self0, homeOf(c, n), key]), n);
			}
			if (n.property.type === 'PrivateIdentifier')
				return at(rtCall('pget', [tx(n.object, c), privateKey(n.property)]), n);
			return at({type: 'MemberExpression', object: tx(n.object, c),
				   property: n.computed ? tx(n.property, c) : n.property,
				   computed: n.computed}, n);
		case 'CallExpression':
			if (n.callee.type === 'Super') {
				var r = realFn(c);
				if (!r.ctor || !r.ctor.derived)
					unsupported(n, 'super() outside a derived constructor');
				var self = id(r.thisAlias), made = temp(c);
				var list = hasSpread(n.arguments) ? arrayWithSpread(n.arguments, c)
								  : arrayOf(txList(n.arguments, c));
				/* The engine's object is used once; this is bound once. */
				var parts = [assign(id(made), rtCall('superCall', [id(r.ctor.cls), list,
					id(r.ctor.nt), id(r.ctor.alloc)], n)),
					assign(id(r.ctor.alloc), lit(null)),
					assign(self, rtCall('bindThis', [id(r.thisAlias), id(made)]))];
				if (r.ctor.init)
					parts.push(call(member(id(r.ctor.init), 'call'), [id(r.thisAlias)]));
				parts.push(id(r.thisAlias));
				return seq(parts);
			}
			if (n.callee.type === 'MemberExpression' && n.callee.object.type === 'Super') {
				var st = thisOf(c);
				var sk = n.callee.computed ? tx(n.callee.property, c)
							   : lit(n.callee.property.name);
				return makeCall(rtCall('superGet', [st, homeOf(c, n), sk]), n.arguments,
						c, thisOf(c), n);
			}
			if (n.callee.type === 'Identifier' && n.callee.$globalEval)
				return txDirectEval(n, c);
			if (isPrivate(n.callee)) {
				var pt = temp(c);
				return makeCall(rtCall('pget', [assign(id(pt), tx(n.callee.object, c)),
								 privateKey(n.callee.property)]),
						n.arguments, c, id(pt), n);
			}
			/* (a?.b)() calls b with this a. */
			if (n.callee.type === 'ChainExpression' &&
			    n.callee.expression.type === 'MemberExpression') {
				var ct = temp(c);
				return makeCall(txChain(n.callee.expression, c, false, ct), n.arguments, c,
						id(ct), n);
			}
			return makeCall(tx(n.callee, c), n.arguments, c, null, n);
		case 'NewExpression':
			if (hasSpread(n.arguments))
				return rtCall('construct', [tx(n.callee, c), arrayWithSpread(n.arguments, c)], n);
			return at({type: 'NewExpression', callee: tx(n.callee, c),
				   arguments: txList(n.arguments, c)}, n);
		case 'ArrayExpression':
			return at(arrayWithSpread(n.elements, c), n);
		case 'ObjectExpression':
			return txObject(n, c);
		case 'TemplateLiteral':
			return txTemplate(n, c);
		case 'TaggedTemplateExpression':
			return txTagged(n, c);
		case 'AwaitExpression':
			return rtCall('awaitValue', [tx(n.argument, c)], n);
		case 'YieldExpression':
			/* (In a loop body the lowering wrapped in an arrow, the
			 * generator is the function around it.) */
			if (realFn(c).asyncGen)
				return rtCall(n.delegate ? 'asyncYieldStar' : 'asyncYield',
					      [n.argument ? tx(n.argument, c) : void0()], n);
			return rtCall(n.delegate ? 'yieldStar' : 'yieldValue',
				      [n.argument ? tx(n.argument, c) : void0()], n);
		case 'LogicalExpression':
			if (n.operator === '??') {
				var left = tx(n.left, c), right = tx(n.right, c);
				if (isSimple(left))
					return at(cond(bin('!=', left, lit(null)), left, right), n);
				var t = temp(c);
				return at(cond(bin('!=', assign(id(t), left), lit(null)), id(t), right), n);
			}
			return at(logical(n.operator, tx(n.left, c), tx(n.right, c)), n);
		case 'BinaryExpression':
			if (n.operator === '**')
				return call(member(id('Math'), 'pow'), [tx(n.left, c), tx(n.right, c)], n);
			if (n.left.type === 'PrivateIdentifier')
				return at(rtCall('pin', [privateKey(n.left), tx(n.right, c)]), n);
			return at(bin(n.operator, tx(n.left, c), tx(n.right, c)), n);
		case 'AssignmentExpression':
			if (isPrivate(n.left))
				return txPrivateAssign(n, c);
			return txAssign(n, c);
		case 'ImportExpression':
			unsupported(n, 'import()');
			break;
		case 'ImportDeclaration':
		case 'ExportNamedDeclaration':
		case 'ExportDefaultDeclaration':
		case 'ExportAllDeclaration':
			unsupported(n, 'a module declaration');
			break;
		case 'MetaProperty':
			if (n.meta.name === 'new')
				return newTargetOf(c, n);
			return n;
		case 'EmptyStatement':
		case 'DebuggerStatement':
		case 'BreakStatement':
		case 'ContinueStatement':
		case 'TemplateElement':
			return n;
		}
		/* Everything else keeps its shape; its children are lowered. */
		out = {};
		for (var k in n) {
			if (!hasOwn.call(n, k) || k.charAt(0) === '$')
				continue;
			var v = n[k];
			if (v instanceof Array) {
				var arr = [];
				for (i = 0; i < v.length; i++) {
					var x = v[i] && typeof v[i].type === 'string' ? tx(v[i], c) : v[i];
					if (x instanceof Array)
						arr.push.apply(arr, x);
					else
						arr.push(x);
				}
				out[k] = arr;
			} else if (v && typeof v === 'object' && typeof v.type === 'string' && k !== 'loc') {
				out[k] = tx(v, c);
			} else {
				out[k] = v;
			}
		}
		return out;
	}

	/* ---- the printer: ES5 text, each node on its original line */

	var PREC = {
		SequenceExpression: 1, AssignmentExpression: 2, ConditionalExpression: 3,
		UnaryExpression: 15, UpdateExpression: 16, NewExpression: 18,
		CallExpression: 18, MemberExpression: 19
	};
	var BINARY = {
		'||': 4, '&&': 5, '|': 6, '^': 7, '&': 8, '==': 9, '!=': 9, '===': 9, '!==': 9,
		'<': 10, '>': 10, '<=': 10, '>=': 10, 'in': 10, 'instanceof': 10, '<<': 11,
		'>>': 11, '>>>': 11, '+': 12, '-': 12, '*': 13, '/': 13, '%': 13
	};

	function precOf(n) {
		if (n.type === 'BinaryExpression' || n.type === 'LogicalExpression')
			return BINARY[n.operator];
		return PREC[n.type] || 20;
	}

	function quote(s) {
		var out = '"';
		for (var i = 0; i < s.length; i++) {
			var ch = s.charAt(i), code = s.charCodeAt(i);
			if (ch === '"' || ch === '\\')
				out += '\\' + ch;
			else if (code >= 0x20 && code < 0x7f)
				out += ch;
			else if (ch === '\n')
				out += '\\n';
			else if (ch === '\t')
				out += '\\t';
			else if (ch === '\r')
				out += '\\r';
			else
				out += '\\u' + ('000' + code.toString(16)).slice(-4);
		}
		return out + '"';
	}

	/* ---- identifiers Duktape's tables lack
	 *
	 * Duktape reads identifiers as ES5.1 does, by its own Unicode tables:
	 * ES2022's ID_Start and ID_Continue (Other_ID_Start such as U+2118,
	 * characters of newer Unicode versions) are not all there, so a name
	 * acorn took may be an "invalid token" to Duktape. The printer writes
	 * every identifier with a character beyond ASCII as an ASCII name of
	 * the lowering's own, the same for every occurrence of the same name,
	 * so scoping is unchanged: $$u, then each letter or digit as it is and
	 * each other UTF-16 unit as _ and four hex digits. A property name is
	 * quoted instead; a declared function or class keeps its name for
	 * .name and stacks (fname, see P.statements and P.fn). */

	var ASCII_NAME = /^[A-Za-z_$][\w$]*$/;

	function printedName(name) {
		if (ASCII_NAME.test(name))
			return name;
		var out = '$$u';
		for (var i = 0; i < name.length; i++) {
			var ch = name.charAt(i);
			out += /[A-Za-z0-9]/.test(ch) ? ch
				: '_' + ('000' + name.charCodeAt(i).toString(16)).slice(-4);
		}
		return out;
	}

	/* A property name after a dot, or as an object literal's key. */
	function printedKey(name) {
		return ASCII_NAME.test(name) ? name : quote(name);
	}

	function Printer() {
		this.out = [];
		this.line = 1;
	}

	var P = Printer.prototype;

	P.sync = function (n) {
		if (n.loc) {
			var target = n.loc.start.line;
			while (this.line < target) {
				this.out.push('\n');
				this.line++;
			}
		}
	};

	P.w = function (s) { this.out.push(s); };

	P.statements = function (list) {
		var i = 0;
		for (; i < list.length && list[i].directive; i++) {
			this.w(' ');
			this.statement(list[i]);
		}
		/* A function declared here under a name printed otherwise is
		 * named again before anything in the block can call it. */
		for (var j = i; j < list.length; j++) {
			var d = list[j];
			if (d.type === 'FunctionDeclaration' && d.id &&
			    printedName(d.id.name) !== d.id.name)
				this.w(' $$rt.fname(' + printedName(d.id.name) + ', ' +
				       quote(d.id.$orig || d.id.name) + ');');
		}
		for (; i < list.length; i++) {
			this.w(' ');
			this.statement(list[i]);
		}
	};

	/* The leftmost node of an expression statement decides whether it
	 * would read as a declaration or a block. */
	function startsBadly(e) {
		for (;;) {
			switch (e.type) {
			case 'FunctionExpression':
			case 'ObjectExpression':
				return true;
			case 'CallExpression': e = e.callee; break;
			case 'MemberExpression': e = e.object; break;
			case 'SequenceExpression': e = e.expressions[0]; break;
			case 'AssignmentExpression':
			case 'BinaryExpression':
			case 'LogicalExpression': e = e.left; break;
			case 'ConditionalExpression': e = e.test; break;
			case 'UpdateExpression':
				if (e.prefix)
					return false;
				e = e.argument;
				break;
			default: return false;
			}
		}
	}

	P.statement = function (n) {
		this.sync(n);
		var i;
		switch (n.type) {
		case 'ExpressionStatement':
			if (n.directive) {
				this.w(quote(n.directive) + ';');
				return;
			}
			if (startsBadly(n.expression)) {
				this.w('(');
				this.expr(n.expression, 1);
				this.w(');');
			} else {
				this.expr(n.expression, 1);
				this.w(';');
			}
			return;
		case 'VariableDeclaration':
			this.varDecl(n);
			this.w(';');
			return;
		case 'FunctionDeclaration':
			this.fn(n);
			return;
		case 'BlockStatement':
			this.w('{');
			this.statements(n.body);
			this.w(' }');
			return;
		case 'ReturnStatement':
		case 'ThrowStatement':
			this.w(n.type === 'ReturnStatement' ? 'return' : 'throw');
			if (n.argument) {
				this.w(' (');
				this.expr(n.argument, 1);
				this.w(')');
			}
			this.w(';');
			return;
		case 'IfStatement':
			this.w('if (');
			this.expr(n.test, 1);
			this.w(') ');
			if (n.alternate && n.consequent.type === 'IfStatement' && !n.consequent.alternate) {
				this.w('{ ');
				this.statement(n.consequent);
				this.w(' }');
			} else {
				this.statement(n.consequent);
			}
			if (n.alternate) {
				this.w(' else ');
				this.statement(n.alternate);
			}
			return;
		case 'ForStatement':
			this.w('for (');
			if (n.init) {
				if (n.init.type === 'VariableDeclaration')
					this.varDecl(n.init);
				else
					this.expr(n.init, 1);
			}
			this.w('; ');
			if (n.test)
				this.expr(n.test, 1);
			this.w('; ');
			if (n.update)
				this.expr(n.update, 1);
			this.w(') ');
			this.statement(n.body);
			return;
		case 'ForInStatement':
			this.w('for (');
			if (n.left.type === 'VariableDeclaration')
				this.varDecl(n.left);
			else
				this.expr(n.left, 19);
			this.w(' in ');
			this.expr(n.right, 1);
			this.w(') ');
			this.statement(n.body);
			return;
		case 'WhileStatement':
			this.w('while (');
			this.expr(n.test, 1);
			this.w(') ');
			this.statement(n.body);
			return;
		case 'DoWhileStatement':
			this.w('do ');
			this.statement(n.body);
			this.w(' while (');
			this.expr(n.test, 1);
			this.w(');');
			return;
		case 'TryStatement':
			/* try B catch C finally F is printed as try { try B catch C }
			 * finally F, which means the same: the engine, given the
			 * flat form, lets C catch what F throws after B or C
			 * returned or broke out. */
			var split = n.handler && n.finalizer;
			this.w(split ? 'try { try ' : 'try ');
			this.statement(n.block);
			if (n.handler) {
				this.sync(n.handler);
				this.w(' catch (' + printedName(n.handler.param.name) + ') ');
				this.statement(n.handler.body);
			}
			if (split)
				this.w(' }');
			if (n.finalizer) {
				this.w(' finally ');
				this.statement(n.finalizer);
			}
			return;
		case 'SwitchStatement':
			this.w('switch (');
			this.expr(n.discriminant, 1);
			this.w(') {');
			for (i = 0; i < n.cases.length; i++) {
				var cs = n.cases[i];
				this.sync(cs);
				if (cs.test) {
					this.w(' case ');
					this.expr(cs.test, 1);
					this.w(':');
				} else {
					this.w(' default:');
				}
				this.statements(cs.consequent);
			}
			this.w(' }');
			return;
		case 'LabeledStatement':
			this.w(printedName(n.label.name) + ': ');
			this.statement(n.body);
			return;
		case 'BreakStatement':
		case 'ContinueStatement':
			this.w((n.type === 'BreakStatement' ? 'break' : 'continue') +
			       (n.label ? ' ' + printedName(n.label.name) : '') + ';');
			return;
		case 'EmptyStatement':
			this.w(';');
			return;
		case 'DebuggerStatement':
			this.w('debugger;');
			return;
		case 'WithStatement':
			this.w('with (');
			this.expr(n.object, 1);
			this.w(') ');
			this.statement(n.body);
			return;
		}
		throw new Error('cannot print a ' + n.type + ' statement');
	};

	P.varDecl = function (n) {
		this.w('var ');
		for (var i = 0; i < n.declarations.length; i++) {
			var d = n.declarations[i];
			if (i)
				this.w(', ');
			this.sync(d);
			this.w(printedName(d.id.name));
			if (d.init) {
				this.w(' = ');
				this.expr(d.init, 2);
			}
		}
	};

	P.fn = function (n) {
		/* A function expression whose name is printed otherwise. */
		var renamed = n.type === 'FunctionExpression' && n.id &&
			printedName(n.id.name) !== n.id.name;
		if (renamed)
			this.w('($$rt.fname(');
		this.w('function');
		if (n.id)
			this.w(' ' + printedName(n.id.name));
		this.params(n.params);
		this.w(' {');
		this.statements(n.body.body);
		this.w(' }');
		if (renamed)
			this.w(', ' + quote(n.id.$orig || n.id.name) + '))');
	};

	P.params = function (params) {
		this.w('(');
		for (var i = 0; i < params.length; i++)
			this.w((i ? ', ' : '') + printedName(params[i].name));
		this.w(')');
	};

	P.args = function (list) {
		this.w('(');
		for (var i = 0; i < list.length; i++) {
			if (i)
				this.w(', ');
			this.expr(list[i], 2);
		}
		this.w(')');
	};

	function hasCall(e) {
		for (;;) {
			if (e.type === 'CallExpression')
				return true;
			if (e.type !== 'MemberExpression')
				return false;
			e = e.object;
		}
	}

	P.expr = function (n, min) {
		this.sync(n);
		var p = precOf(n);
		if (p < min) {
			this.w('(');
			this.expr(n, 1);
			this.w(')');
			return;
		}
		var i;
		switch (n.type) {
		case 'Identifier':
			this.w(printedName(n.name));
			return;
		case 'Raw':
			this.w(n.code);
			return;
		case 'ThisExpression':
			this.w('this');
			return;
		case 'Literal':
			if (n.regex) {
				this.w('/' + n.regex.pattern + '/' + n.regex.flags);
			} else if (typeof n.value === 'string') {
				this.w(quote(n.value));
			} else if (typeof n.value === 'number') {
				var s = String(n.value);
				this.w(n.value < 0 || (1 / n.value) < 0 ? '(' + s + ')' : s);
			} else {
				this.w(String(n.value));
			}
			return;
		case 'ArrayExpression':
			this.w('[');
			for (i = 0; i < n.elements.length; i++) {
				if (i)
					this.w(', ');
				if (n.elements[i])
					this.expr(n.elements[i], 2);
			}
			if (n.elements.length && !n.elements[n.elements.length - 1])
				this.w(',');
			this.w(']');
			return;
		case 'ObjectExpression':
			this.w('{');
			for (i = 0; i < n.properties.length; i++) {
				var pr = n.properties[i];
				this.w(i ? ', ' : '');
				this.sync(pr);
				var key = pr.key.type === 'Identifier' ? printedKey(pr.key.name)
					: typeof pr.key.value === 'number' ? String(pr.key.value)
					: quote(pr.key.value);
				if (pr.kind === 'get' || pr.kind === 'set' || pr.method) {
					this.w((pr.method ? '' : pr.kind + ' ') + key);
					this.params(pr.value.params);
					this.w(' {');
					this.statements(pr.value.body.body);
					this.w(' }');
				} else {
					this.w(key + ': ');
					this.expr(pr.value, 2);
				}
			}
			this.w('}');
			return;
		case 'FunctionExpression':
			this.fn(n);
			return;
		case 'SequenceExpression':
			for (i = 0; i < n.expressions.length; i++) {
				if (i)
					this.w(', ');
				this.expr(n.expressions[i], 2);
			}
			return;
		case 'UnaryExpression':
			this.w(n.operator);
			var a = n.argument;
			if (/[a-z]/.test(n.operator) ||
			    (a.type === 'UnaryExpression' || a.type === 'UpdateExpression') &&
				    a.operator.charAt(0) === n.operator.charAt(0))
				this.w(' ');
			this.expr(a, 15);
			return;
		case 'UpdateExpression':
			if (n.prefix) {
				this.w(n.operator);
				this.expr(n.argument, 15);
			} else {
				this.expr(n.argument, 18);
				this.w(n.operator);
			}
			return;
		case 'BinaryExpression':
		case 'LogicalExpression':
			if (n.operator === 'in') {
				/* Never ambiguous inside a for head. */
				this.w('(');
				this.expr(n.left, p);
				this.w(' in ');
				this.expr(n.right, p + 1);
				this.w(')');
				return;
			}
			this.expr(n.left, p);
			this.w(' ' + n.operator + ' ');
			this.expr(n.right, p + 1);
			return;
		case 'AssignmentExpression':
			this.expr(n.left, 19);
			this.w(' ' + n.operator + ' ');
			this.expr(n.right, 2);
			return;
		case 'ConditionalExpression':
			this.expr(n.test, 4);
			this.w(' ? ');
			this.expr(n.consequent, 2);
			this.w(' : ');
			this.expr(n.alternate, 2);
			return;
		case 'CallExpression':
			/* A direct eval of a string not lowered would see the
			 * wrapper's $$rt and the lowering's temporaries: the only
			 * direct ones are txDirectEval's, whose string is lowered;
			 * any other eval(...) (of a binding of the script's named
			 * eval) is made an indirect one. */
			if (n.callee.type === 'Identifier' && n.callee.name === 'eval' && !n.$direct)
				this.w('(0, eval)');
			else
				this.expr(n.callee, 18);
			this.args(n.arguments);
			return;
		case 'NewExpression':
			this.w('new ');
			if (hasCall(n.callee)) {
				this.w('(');
				this.expr(n.callee, 1);
				this.w(')');
			} else {
				this.expr(n.callee, 19);
			}
			this.args(n.arguments);
			return;
		case 'MemberExpression':
			var o = n.object;
			if (o.type === 'Literal' && typeof o.value === 'number' || o.type === 'NewExpression' &&
			    !o.arguments) {
				this.w('(');
				this.expr(o, 1);
				this.w(')');
			} else {
				this.expr(o, 18);
			}
			if (n.computed) {
				this.w('[');
				this.expr(n.property, 1);
				this.w(']');
			} else if (ASCII_NAME.test(n.property.name)) {
				this.w('.' + n.property.name);
			} else {
				this.w('[' + quote(n.property.name) + ']');
			}
			return;
		case 'MetaProperty':
			this.w(n.meta.name + '.' + n.property.name);
			return;
		}
		throw new Error('cannot print a ' + n.type + ' expression');
	};

	/* ---- parsing */

	function parse(src, language, body) {
		var opts = {ecmaVersion: 2022, sourceType: 'script', locations: true,
			    allowReturnOutsideFunction: body, allowAwaitOutsideFunction: body,
			    allowHashBang: false};
		var jsError = null;
		if (language !== 'typescript') {
			try {
				return acorn.parse(src, opts);
			} catch (e) {
				if (language === 'javascript' || !(e instanceof SyntaxError) || !e.loc)
					throw e;
				jsError = e;
			}
		}
		if (!ts)
			ts = tsFactory(acorn);
		try {
			return ts.parse(src, opts);
		} catch (e2) {
			/* Code that fails both ways is most likely what got further. */
			if (jsError && (!e2.loc || e2.pos <= jsError.pos))
				throw jsError;
			throw e2;
		}
	}

	function syntaxError(e) {
		if (e instanceof CodeError)
			return e;
		if (e instanceof SyntaxError && e.loc) {
			var message = String(e.message).replace(/ \(\d+:\d+\)$/, '');
			return new CodeError(message, e.loc.line, e.loc.column + 1);
		}
		return null;
	}

	/* src as ES5: {code} with statements on their original lines, or
	 * {error: {message, line, column}} for code that is invalid (or uses
	 * what cannot be lowered). body: src is a function body (return and
	 * await allowed at the top), else program code. mode: eval code
	 * ('direct', 'global': see evalSetup) or a Function constructor's
	 * ('function'); env: what a direct eval's caller knows (txDirectEval). */
	function downlevel(src, language, body, mode, env) {
		var program;
		try {
			program = parse(src, language, body);
			var root = new Scope(null, true);
			root.isProgram = !body;
			evalEnv = mode === 'direct' && env || null;
			analyze(program, root);
			tempN = classN = 0;
			usesNamedGroups = usesTdz = false;
			var pre = 0;
			while (pre < program.body.length && program.body[pre].directive)
				pre++;
			program.body.splice.apply(program.body, [pre, 0].concat(tdzPrelude(program)));
			var top = new Fn(null, false), stmts;
			top.strict = strictBody(program.body);
			completion = null;
			if (mode === 'direct' || mode === 'global')
				evalSetup(program, root, top);
			programTop = !body && (!mode || mode === 'global' && !top.strict) ? top : null;
			top.thisAlias = evalEnv && evalEnv.thisName || null;
			top.argsAlias = evalEnv && evalEnv.argsName || null;
			if (body && root.awaits) {
				var inner = {type: 'FunctionExpression', id: null, params: [],
					     body: block(program.body), async: true, generator: false,
					     loc: program.loc};
				stmts = [ret(txAsyncTop(inner, top), program)];
			} else {
				stmts = txList(program.body, top);
			}
			var directives = [];
			while (stmts.length && stmts[0].directive)
				directives.push(stmts.shift());
			if (completion)
				stmts.push(mode === 'direct' ? stmt(id(completion)) : ret(id(completion)));
			var globals = [];
			if (!body && (!mode || mode === 'global' && !top.strict))
				stmts = globalize(stmts, top, globals);
			tempHigh = Math.max(tempHigh, tempN);
			classHigh = Math.max(classHigh, classN);
			var head = declarations(top);
			if (top.globalHead)
				head = head.concat(top.globalHead);
			/* String methods learn about named groups before any of the
			 * script's calls looks them up. */
			if (usesNamedGroups)
				head.unshift(stmt(rtCall('namedGroups', [])));
			if (usesTdz)
				head.unshift(varDecl([[id('$$tdz'), rt('TDZ')]]));
			var pr = new Printer();
			pr.statements(directives.concat(head, stmts));
			return body ? {code: pr.out.join('')} : {code: pr.out.join(''), globals: globals};
		} catch (e) {
			var err = syntaxError(e);
			if (!err)
				throw e;
			return {error: {message: err.message, line: err.line, column: err.column}};
		}
	}

	/* Program code (test mode's sources) runs inside the engine's wrapper,
	 * function ($$rt) { return function () { CODE }; }, which hands it the
	 * runtime without a global. Its declarations must still be globals,
	 * seen by the other source: a var (anywhere outside functions) becomes
	 * an assignment to a global the engine declares before the wrapper
	 * (names in globals); a function declaration is renamed within the
	 * wrapper and assigned to its global at the start, as hoisting would,
	 * keeping its name for .name and stacks. The lowering's own names
	 * ($$...) stay the wrapper's. */
	function globalize(stmts, top, globals) {
		top.globalHead = [];
		var seen = {};
		function global(name) {
			if (ours(name)) {
				if (top.temps.indexOf(name) < 0)
					top.temps.push(name);
			} else if (!hasOwn.call(seen, '$' + name)) {
				seen['$' + name] = true;
				globals.push(printedName(name));
			}
		}
		function assignments(decl) {
			var list = [];
			for (var i = 0; i < decl.declarations.length; i++) {
				var d = decl.declarations[i];
				global(d.id.name);
				if (d.init)
					list.push(at(assign(d.id, d.init), d));
			}
			return list;
		}
		function walk(x) {
			if (!x || typeof x.type !== 'string' || isFunction(x))
				return x;
			if (x.type === 'VariableDeclaration') {
				var list = assignments(x);
				return list.length ? stmt(seq(list), x) : at({type: 'EmptyStatement'}, x);
			}
			if (x.type === 'ForStatement' && x.init && x.init.type === 'VariableDeclaration') {
				var init = assignments(x.init);
				x.init = init.length ? seq(init) : null;
			}
			if (x.type === 'ForInStatement' && x.left.type === 'VariableDeclaration') {
				global(x.left.declarations[0].id.name);
				x.left = x.left.declarations[0].id;
			}
			for (var k in x) {
				if (k === 'loc' || k.charAt(0) === '$' || !hasOwn.call(x, k))
					continue;
				var v = x[k];
				if (v instanceof Array) {
					for (var i = 0; i < v.length; i++)
						v[i] = walk(v[i]);
				} else if (v && typeof v.type === 'string') {
					x[k] = walk(v);
				}
			}
			return x;
		}
		var fnN = 0;
		for (var i = 0; i < stmts.length; i++) {
			var n = stmts[i];
			if (n.type === 'FunctionDeclaration' && n.id && !ours(n.id.name)) {
				var name = n.id.name, local = '$$fn' + (++fnN);
				global(name);
				n.id = at({type: 'Identifier', name: local, $orig: n.id.$orig}, n.id);
				top.globalHead.push(stmt(assign(id(name),
					rtCall('fname', [id(local), lit(n.id.$orig || name)]))));
			} else {
				stmts[i] = walk(n);
			}
		}
		return stmts;
	}

	/* A body with top-level await: the whole of it is an async function
	 * called at once, whose promise the script returns. */
	function txAsyncTop(inner, top) {
		return call(txFunction(inner, top), []);
	}

	/* ---- eval and Function
	 *
	 * A string given to eval or to the Function constructor is lowered as
	 * the script was, by the runtime (runtime.js), inside the worker under
	 * the same limits. Its names beginning with $$ are renamed as a
	 * script's are, so it can name neither $$rt nor a temporary; its own
	 * temporaries are numbered on from every lowering before it in the
	 * worker, so that a direct eval's never meet its caller's. */

	var tempHigh = 0, classHigh = 0;
	var completion = null; /* eval code: the temporary holding its value */
	var evalEnv = null;    /* a direct eval's: what its caller's lowering told */
	var programTop = null; /* program code's top level */

	/* eval code (mode 'direct': run by a direct eval, where its var and
	 * function declarations are the caller's; 'global': run as global code
	 * by an indirect eval): temporaries numbered on; its let, const and
	 * class declarations the eval's own, renamed so that they cannot
	 * become the caller's vars; the ES2015 completion value kept in a
	 * temporary the lowered code ends with. */
	function evalSetup(program, root, top) {
		tempN = tempHigh;
		classN = classHigh;
		var lexical = evalEnv && !top.strict && evalEnv.lexical || [];
		if (evalEnv && evalEnv.noArguments)
			noArguments(program);
		for (var key in root.names) {
			if (!hasOwn.call(root.names, key))
				continue;
			var b = root.names[key];
			if (BLOCK_KINDS[b.kind] !== true) {
				/* EvalDeclarationInstantiation, step 5: a sloppy direct
				 * eval's var cannot be hoisted over a lexical binding. */
				if (lexical.indexOf(b.name) >= 0) {
					var at0 = b.nodes[0].loc ? b.nodes[0].loc.start : {line: 0, column: 0};
					throw new CodeError("the var '" + b.name + "' would be hoisted over the " +
							    'binding of that name around the eval',
							    at0.line, at0.column + 1);
				}
				continue;
			}
			var name = '$$l' + (++tempN) + '_' + b.name;
			for (var j = 0; j < b.nodes.length; j++) {
				if (!b.nodes[j].$orig)
					b.nodes[j].$orig = b.name;
				b.nodes[j].name = name;
			}
			b.name = name;
		}
		completion = temp(top);
		program.body = completionList(program.body);
	}

	/* ContainsArguments of eval code in a class field's initialiser or a
	 * static block: a SyntaxError (PerformEval, step 10). */
	function noArguments(n) {
		if (n.type === 'FunctionExpression' || n.type === 'FunctionDeclaration')
			return;
		if (n.type === 'Identifier' && n.name === 'arguments') {
			var loc = n.loc ? n.loc.start : {line: 0, column: 0};
			throw new CodeError("'arguments' is not allowed in class field initializer or " +
					    'static initialization block', loc.line, loc.column + 1);
		}
		if (n.type === 'MemberExpression' && !n.computed) {
			noArguments(n.object);
			return;
		}
		if ((n.type === 'Property' || n.type === 'MethodDefinition' ||
		     n.type === 'PropertyDefinition') && !n.computed) {
			if (n.value)
				noArguments(n.value);
			return;
		}
		if (n.type === 'LabeledStatement') {
			noArguments(n.body);
			return;
		}
		if (n.type === 'BreakStatement' || n.type === 'ContinueStatement')
			return;
		children(n, noArguments);
	}

	var RESETS = {IfStatement: true, ForStatement: true, ForInStatement: true,
		      ForOfStatement: true, WhileStatement: true, DoWhileStatement: true,
		      SwitchStatement: true, TryStatement: true, WithStatement: true};

	/* Marks the expression statements whose value may be the completion
	 * value; before each statement whose value ES2015 makes undefined
	 * when it has none of its own (UpdateEmpty(..., undefined)), the value
	 * is reset. A finally block's value is never the statement's. */
	function completionList(list) {
		var out = [];
		for (var i = 0; i < list.length; i++) {
			var n = list[i], inner = n;
			while (inner.type === 'LabeledStatement')
				inner = inner.body;
			if (RESETS[inner.type] === true)
				out.push(at(stmt(assign(id(completion), void0())), n));
			completionStmt(inner);
			out.push(n);
		}
		return out;
	}

	function completionSub(n) {
		if (!n)
			return n;
		var list = completionList([n]);
		return list.length === 1 ? list[0] : at(block(list), n);
	}

	function completionStmt(n) {
		switch (n.type) {
		case 'ExpressionStatement':
			if (n.directive === undefined)
				n.$cv = true;
			return;
		case 'BlockStatement':
			n.body = completionList(n.body);
			return;
		case 'IfStatement':
			n.consequent = completionSub(n.consequent);
			n.alternate = completionSub(n.alternate);
			return;
		case 'ForStatement':
		case 'ForInStatement':
		case 'ForOfStatement':
		case 'WhileStatement':
		case 'DoWhileStatement':
		case 'WithStatement':
			n.body = completionSub(n.body);
			return;
		case 'SwitchStatement':
			for (var i = 0; i < n.cases.length; i++)
				n.cases[i].consequent = completionList(n.cases[i].consequent);
			return;
		case 'TryStatement':
			completionStmt(n.block);
			/* A catch block's value replaces the try block's. */
			if (n.handler) {
				completionStmt(n.handler.body);
				n.handler.body.body.unshift(at(stmt(assign(id(completion), void0())),
							       n.handler.body));
			}
			return;
		}
	}

	/* eval(args), eval the global one: a direct eval of the arguments'
	 * first as the runtime lowered it (or what eval is now, if a script
	 * replaced it). The engine's wrapper binds eval, inside lowered code,
	 * to the engine's own: every other mention of the global eval is
	 * made the global's property (see tx). */
	function txDirectEval(n, c) {
		/* Program code runs inside the engine's wrapper, but its scope is
		 * the global one: there, a direct eval is the global eval's. */
		if (realFn(c) === programTop)
			return makeCall(member(rt('global'), 'eval'), n.arguments, c, null, n);
		var list = hasSpread(n.arguments) ? arrayWithSpread(n.arguments, c)
						  : arrayOf(txList(n.arguments, c));
		/* In an arrow (or a derived constructor), the string's this and
		 * arguments are the names the caller's lowering gave them; its
		 * names of the caller's bindings, the names those were given;
		 * its vars must not meet the lexical bindings (or, in parameters,
		 * the parameters) between it and its caller's var scope. */
		var self = thisOf(c), args = argumentsOf(c), env = [];
		if (self.type === 'Identifier')
			env.push(prop('thisName', lit(self.name)));
		if (args.name !== 'arguments')
			env.push(prop('argsName', lit(args.name)));
		var renames = [], lexical = [], seen = {};
		for (var sc = n.$evalScope; sc; sc = sc.parent) {
			for (var key in sc.names) {
				if (!hasOwn.call(sc.names, key))
					continue;
				var b = sc.names[key], first = b.nodes[0] || {name: b.name};
				var orig = first.$orig || first.name;
				if (sc.fn === n.$evalScope.fn && !sc.simpleCatch && (BLOCK_KINDS[b.kind] === true ||
				    n.$inParams && b.kind === 'param'))
					lexical.push(lit(orig));
				if (hasOwn.call(seen, '$' + orig))
					continue;
				seen['$' + orig] = true;
				if (first.name !== orig)
					renames.push({type: 'Property', key: lit('$' + orig), value: lit(first.name),
						      kind: 'init', computed: false, method: false,
						      shorthand: false});
			}
		}
		if (renames.length)
			env.push(prop('renames', objectOf(renames)));
		/* In a field initialiser or a static block (arrows there too), the
		 * string may not name arguments. */
		var home = n.$evalScope.fn;
		while (home.arrow && home.parent)
			home = home.parent.fn;
		if (home.classInit)
			env.push(prop('noArguments', lit(true)));
		if (lexical.length)
			env.push(prop('lexical', arrayOf(lexical)));
		var e = call(id('eval'), [rtCall('evalArg', [list, lit(!!realFn(c).strict),
			env.length ? objectOf(env) : lit(null)])], n);
		e.$direct = true;
		return e;
	}

	/* The Function constructor's source: parameters and body, each
	 * parsed alone as the specification has it (the whole must be one
	 * function whose parameters and body are exactly these), lowered as a
	 * function body that returns the function. */
	function lowerFunction(params, bodySrc, kind) {
		var head = 'return (' + kind + ' anonymous(', mid = '\n) {', tail = '\n});';
		var src = head + params + mid + '\n' + bodySrc + tail;
		var program;
		try {
			program = parse(src, 'javascript', true);
		} catch (e) {
			var err = syntaxError(e);
			if (!err)
				throw e;
			return {error: {message: err.message, line: err.line, column: err.column}};
		}
		var s0 = program.body.length === 1 ? program.body[0] : null;
		var fn = s0 && s0.type === 'ReturnStatement' ? s0.argument : null;
		if (!fn || fn.type !== 'FunctionExpression' ||
		    fn.body.start !== head.length + params.length + mid.length - 1 ||
		    fn.end !== src.length - 2)
			return {error: {message: 'the parameters or the body are not what they must be',
					line: 1, column: 1}};
		return downlevel(src, 'javascript', true, 'function');
	}

	return {downlevel: downlevel, lowerFunction: lowerFunction};
})
