#!/usr/bin/env node
/*
 * unicode-id.js: writes worker/js/acorn-unicode.js, acorn's four
 * identifier tables for the Unicode version of the Node running it
 * (ID_Start, ID_Continue: Other_ID_Start and Other_ID_Continue included,
 * Pattern_Syntax and Pattern_White_Space excluded, as ES2022 requires),
 * in the encoding acorn's tokenizer reads. scripts/acorn-unicode.sh puts
 * them in place of the tables Debian's acorn was built with.
 *
 *     node scripts/unicode-id.js > worker/js/acorn-unicode.js
 *
 * Run it again with a newer Node when Unicode moves on.
 */
'use strict';
const start = /^\p{ID_Start}$/u, part = /^\p{ID_Continue}$/u;

function hex(c) {
	return c <= 0xff ? '\\x' + c.toString(16).padStart(2, '0')
		: '\\u' + c.toString(16).padStart(4, '0');
}

/* Code points beyond ASCII with the property: BMP ones as the body of a
 * character class, the others as acorn's astral list, pairs of (offset
 * from the end of the previous range, length less one) from 0x10000. */
function table(has) {
	let bmp = '', astral = [], at = 0x10000;
	for (let c = 0x80; c <= 0x10ffff; c++) {
		if (!has(c))
			continue;
		let to = c;
		while (to < 0x10ffff && has(to + 1) && (to + 1 > 0xffff) === (c > 0xffff))
			to++;
		if (to <= 0xffff) {
			bmp += hex(c) + (to === c ? '' : to === c + 1 ? hex(to) : '-' + hex(to));
		} else {
			astral.push(c - at, to - c);
			at = to;
		}
		c = to;
	}
	return {bmp, astral};
}

const isStart = (c) => start.test(String.fromCodePoint(c));
const isPart = (c) => (part.test(String.fromCodePoint(c)) || c === 0x200c || c === 0x200d) &&
	!isStart(c);
const s = table(isStart), p = table(isPart);
process.stdout.write(
	'// acorn\'s identifier tables for Unicode ' + process.versions.unicode +
	', written by scripts/unicode-id.js (node ' + process.version + ').\n' +
	'  var astralIdentifierCodes = [' + p.astral.join(', ') + '];\n' +
	'  var astralIdentifierStartCodes = [' + s.astral.join(', ') + '];\n' +
	'  var nonASCIIidentifierChars = "' + p.bmp + '";\n' +
	'  var nonASCIIidentifierStartChars = "' + s.bmp + '";\n');
