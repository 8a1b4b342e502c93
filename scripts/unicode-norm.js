#!/usr/bin/env node
/*
 * unicode-norm.js: writes worker/js/normtables.js, the tables behind
 * String.prototype.normalize (worker/js/builtins.js), for the Unicode
 * version of the Node running it, read from Node's own normalize:
 *
 * - canonical: each code point's full canonical decomposition (NFD of the
 *   one character), Hangul syllables left out (they are computed);
 * - compat: each code point whose full compatibility decomposition (NFKD)
 *   differs from its canonical one;
 * - classes: the canonical combining class of every character that has
 *   one, as a rank that orders them as the classes do (the numbers
 *   themselves are not needed): found by asking Node which of two marks
 *   it puts first after "a";
 * - pairs: the primary composites (those NFC keeps), each with the two
 *   characters it composes from: NFC of its decomposition without one
 *   mark, and that mark, the last one for which this gives it back;
 *   Hangul left out.
 *
 *     node scripts/unicode-norm.js > worker/js/normtables.js
 *
 * Run it again with a newer Node when Unicode moves on.
 */
'use strict';

const MAX = 0x10ffff;
const chars = (s) => Array.from(s);
const isHangul = (c) => c >= 0xac00 && c <= 0xd7a3;
const live = (c) => !(c >= 0xd800 && c <= 0xdfff);

/* Whether NFD moves b before a after a starter: then a's class is higher
 * than b's, both nonzero. */
function swaps(a, b) {
	return ('a' + a + b).normalize('NFD') === 'a' + b + a;
}

const canonical = [], compat = [], marks = [], pairs = [];
for (let c = 0; c <= MAX; c++) {
	if (!live(c) || isHangul(c))
		continue;
	const s = String.fromCodePoint(c), d = s.normalize('NFD'), k = s.normalize('NFKD');
	if (d !== s)
		canonical.push([c, d]);
	if (k !== d)
		compat.push([c, k]);
	if (d === s && c >= 0x300 && (swaps(s, '\u0334') || swaps('\u0301', s)))
		marks.push(s);
}

/* Ranks: marks sorted by class, equal classes one rank. */
function order(a, b) {
	return swaps(a, b) ? 1 : swaps(b, a) ? -1 : 0;
}
marks.sort(order);
const classes = [];
let rank = 0;
for (let i = 0; i < marks.length; i++) {
	if (i === 0 || order(marks[i - 1], marks[i]) !== 0)
		rank++;
	classes.push([marks[i].codePointAt(0), rank]);
}
classes.sort((x, y) => x[0] - y[0]);

for (const [c, d] of canonical) {
	const p = String.fromCodePoint(c);
	if (p.normalize('NFC') !== p)
		continue; /* excluded from composition, or a singleton */
	/* Composition joins the marks to the starter in their order, so the
	 * pair is with the last mark that can be the second. */
	const cps = chars(d);
	let found = null;
	for (let k = cps.length - 1; k >= 1 && !found; k--) {
		const rest = cps.slice(0, k).concat(cps.slice(k + 1)).join('');
		const first = rest.normalize('NFC');
		if (chars(first).length === 1 && (first + cps[k]).normalize('NFC') === p)
			found = [first.codePointAt(0), cps[k].codePointAt(0)];
	}
	if (!found)
		throw new Error('no pair for U+' + c.toString(16));
	pairs.push([found[0], found[1], c]);
}

/* Code points as base-36 numbers; a decomposition as its code points.
 * Each table is split by block of 256 code points (of the code point,
 * or of a composite's first character), so that a worker reads only the
 * blocks the text it normalizes touches. */
const b36 = (n) => n.toString(36);
function blocks(entries, cpOf, text) {
	const out = {};
	for (const e of entries) {
		const k = b36(cpOf(e) >> 8);
		(out[k] || (out[k] = [])).push(text(e));
	}
	for (const k in out)
		out[k] = out[k].join(',');
	return out;
}
const decomp = ([c, d]) => b36(c) + ':' + chars(d).map((x) => b36(x.codePointAt(0))).join('.');

const out = [];
out.push(`// String.prototype.normalize's tables for Unicode ${process.versions.unicode}, written by scripts/unicode-norm.js (node ${process.version}).`);
out.push('// ' + canonical.length + ' canonical and ' + compat.length + ' compatibility decompositions, ' +
	 classes.length + ' combining marks in ' + rank + ' classes, ' + pairs.length + ' composites.');
out.push('({');
out.push('\tcanonical: ' + JSON.stringify(blocks(canonical, (e) => e[0], decomp)) + ',');
out.push('\tcompat: ' + JSON.stringify(blocks(compat, (e) => e[0], decomp)) + ',');
out.push('\tclasses: ' + JSON.stringify(blocks(classes, (e) => e[0], ([c, r]) => b36(c) + ':' + b36(r))) + ',');
out.push('\tpairs: ' + JSON.stringify(blocks(pairs, (e) => e[0], (e) => e.map(b36).join('.'))));
out.push('})');
console.log(out.join('\n'));
