#!/bin/sh
# acorn-unicode.sh ACORN TABLES: ACORN (acorn.js as Debian ships it) with its
# four identifier tables replaced by those in TABLES (worker/js/acorn-unicode.js,
# written by scripts/unicode-id.js), so identifiers follow the Unicode version
# of the tables rather than the one acorn was built with. Fails when ACORN
# does not hold each table exactly once, on a line of its own.
set -eu
acorn=$1
tables=$2
for v in astralIdentifierCodes astralIdentifierStartCodes nonASCIIidentifierChars \
	nonASCIIidentifierStartChars; do
	n=$(grep -c "^  var $v = " "$acorn" || true)
	if [ "$n" != 1 ]; then
		echo "acorn-unicode.sh: $acorn has $n lines defining $v, not 1" >&2
		exit 1
	fi
	if [ "$(grep -c "^  var $v = " "$tables" || true)" != 1 ]; then
		echo "acorn-unicode.sh: $tables does not define $v once" >&2
		exit 1
	fi
done
awk -v tables="$tables" '
	BEGIN {
		while ((getline line < tables) > 0)
			if (match(line, /^  var [A-Za-z]+ = /))
				def[substr(line, 7, RLENGTH - 9)] = line
	}
	match($0, /^  var [A-Za-z]+ = /) && (substr($0, 7, RLENGTH - 9) in def) {
		print def[substr($0, 7, RLENGTH - 9)]
		next
	}
	{ print }
' "$acorn"
