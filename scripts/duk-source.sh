#!/bin/sh
# duk-source.sh SRC: prints Debian's duktape.c (the Duktape source in
# /usr/share/duktape) with sandboxd's changes to what the engine means.
# Each pattern must match exactly once; the build fails otherwise, so a
# changed upstream source cannot slip through unnoticed.
set -eu
src=$1
check() {
	n=$(grep -c "^$1\$" "$src" || true)
	if [ "$n" != 1 ]; then
		echo "duk-source.sh: expected one '$1' in $src, found $n" >&2
		exit 1
	fi
}
# ES2015 (16.1, forbidden extensions): a strict function has no own
# "caller" and "arguments"; both are accessors of Function.prototype that
# throw (polyfills.js). Duktape follows ES5 and gives each strict closure its
# own throwers, which also leaves a class no static member of those names.
check '		duk_xdef_prop_stridx_thrower(thr, -2, DUK_STRIDX_CALLER);'
check '		duk_xdef_prop_stridx_thrower(thr, -2, DUK_STRIDX_LC_ARGUMENTS);'
# Nor has a bound function (ES2015 9.4.1.3), which Duktape's bind gives them.
check '	duk_xdef_prop_stridx_thrower(thr, -1, DUK_STRIDX_CALLER);'
check '	duk_xdef_prop_stridx_thrower(thr, -1, DUK_STRIDX_LC_ARGUMENTS);'
# ES5's [[Get]] of a function (15.3.5.4) refused to read a strict function
# out of a property named "caller"; ES2015 has no such rule, and it would
# make a class's static caller() method unreadable.
check '	if (key == DUK_HTHREAD_STRING_CALLER(thr) \&\& DUK_TVAL_IS_OBJECT(tv_obj)) {'
echo "/* Generated from $src by scripts/duk-source.sh. */"
sed -e 's|^		duk_xdef_prop_stridx_thrower(thr, -2, DUK_STRIDX_CALLER);$|		/* sandboxd: no own caller (scripts/duk-source.sh) */|' \
    -e 's|^		duk_xdef_prop_stridx_thrower(thr, -2, DUK_STRIDX_LC_ARGUMENTS);$|		/* sandboxd: no own arguments (scripts/duk-source.sh) */|' \
    -e 's|^	duk_xdef_prop_stridx_thrower(thr, -1, DUK_STRIDX_CALLER);$|	/* sandboxd: no own caller (scripts/duk-source.sh) */|' \
    -e 's|^	duk_xdef_prop_stridx_thrower(thr, -1, DUK_STRIDX_LC_ARGUMENTS);$|	/* sandboxd: no own arguments (scripts/duk-source.sh) */|' \
    -e 's|^	if (key == DUK_HTHREAD_STRING_CALLER(thr) \&\& DUK_TVAL_IS_OBJECT(tv_obj)) {$|	if (0 /* sandboxd: ES2015 (scripts/duk-source.sh) */ \&\& key == DUK_HTHREAD_STRING_CALLER(thr)) {|' \
    "$src"
