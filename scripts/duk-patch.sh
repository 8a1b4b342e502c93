#!/bin/sh
# duk-patch.sh SRC: prints Debian's duktape.c (the Duktape source in
# /usr/share/duktape) with the changes that make its functions the ones
# ES2022 describes where Duktape keeps the ES5.1 rules. Each change names
# the exact lines it replaces; the build fails when one is not there
# exactly once, so a changed upstream source cannot slip through unnoticed.
#
# 1. Every function has an own "name": "" for an anonymous one (ES2022
#    SetFunctionName in every function definition), not Function.prototype's.
# 2. Strict functions and bound functions have no own "caller" and
#    "arguments" throwers (ES2022 16.2: only %Function.prototype% has them,
#    AddRestrictedFunctionProperties; the polyfills put them there).
#    This also leaves a class free to have static members of those names.
# 3. ES5's [[Get]] of a function (15.3.5.4) refused to read a strict
#    function out of a property named "caller"; ES2015 has no such rule,
#    and it would make a class's static caller() method unreadable.
# 4. Number-to-string (String(x), JSON.stringify, which the reply's value
#    is read from) took every power of two from 2^-1021 to 2^-970 for the
#    minimum exponent, whose gaps to the neighbouring doubles are equal:
#    its test compared the exponent of the 53-bit mantissa with the
#    exponent of 1.f (-1022, where the mantissa's is -1074). Their lower
#    gap is half the upper, and with both taken as the upper one nine of
#    them (2^-1019 to 2^-1001) came out a digit short, as the decimal of
#    the neighbouring double.
# 5. Where the last digit's two choices are equally close, Number::toString
#    takes the even one (ECMA-262 6.1.6.1.20); Duktape took the higher
#    (995717543575227.25 printed as ...227.3, Node's ...227.2).
# 6. String-to-number (literals, Number(), parseFloat, JSON.parse) rounded
#    a decimal lying exactly halfway between two doubles up, not to the
#    even one (IEEE round-half-even, which ECMA-262 asks for): 1e23 read as
#    1.0000000000000001e+23. The binary digits it generates are exact when
#    their remainder is zero; such a tie now keeps the even mantissa. (A
#    tie among the subnormals, rounded at another digit, still rounds up.)
# 7. The Error constructors take (message, options) and install an own,
#    non-enumerable "cause" when options has one (ES2022
#    InstallErrorCause); their "length" stays 1. The constructors' native
#    takes two arguments for it.
set -eu
src=$1
check() {
	n=$(grep -c -x -F "$1" "$src" || true)
	if [ "$n" != 1 ]; then
		echo "duk-patch.sh: expected one '$1' in $src, found $n" >&2
		exit 1
	fi
}
check '		DUK_DD(DUK_DDPRINT("not setting function instance .name"));'
check '		duk_xdef_prop_stridx_thrower(thr, -2, DUK_STRIDX_CALLER);'
check '		duk_xdef_prop_stridx_thrower(thr, -2, DUK_STRIDX_LC_ARGUMENTS);'
check '	duk_xdef_prop_stridx_thrower(thr, -1, DUK_STRIDX_CALLER);'
check '	duk_xdef_prop_stridx_thrower(thr, -1, DUK_STRIDX_LC_ARGUMENTS);'
check '	if (key == DUK_HTHREAD_STRING_CALLER(thr) && DUK_TVAL_IS_OBJECT(tv_obj)) {'
check '		if (nc_ctx->e > DUK__IEEE_DOUBLE_EXP_MIN /*not minimum exponent*/ &&'
check '				if (duk__bi_compare(&nc_ctx->t1, &nc_ctx->s) < 0) { /* (< (* r 2) s) */'
check '	if (!skip_round) {'
check '			c_nargs = (duk_small_int_t) duk_bd_decode_flagged_signed(bd, DUK__NARGS_BITS, len /*def_value*/);'
check '	/* Augment the error if called as a normal function.  __FILE__ and __LINE__'
echo "/* Generated from $src by scripts/duk-patch.sh. */"
sed -e 's|^\t\tDUK_DD(DUK_DDPRINT("not setting function instance .name"));$|\t\tduk_push_hstring_stridx(thr, DUK_STRIDX_EMPTY_STRING); duk_xdef_prop_stridx_short(thr, -4, DUK_STRIDX_NAME, DUK_PROPDESC_FLAGS_C); /* duk-patch.sh: own name "" (the closure under template and undefined) */|' \
    -e 's|^\t\tduk_xdef_prop_stridx_thrower(thr, -2, DUK_STRIDX_CALLER);$|\t\t/* duk-patch.sh: no own caller (ES2022) */|' \
    -e 's|^\t\tduk_xdef_prop_stridx_thrower(thr, -2, DUK_STRIDX_LC_ARGUMENTS);$|\t\t/* duk-patch.sh: no own arguments (ES2022) */|' \
    -e 's|^\tduk_xdef_prop_stridx_thrower(thr, -1, DUK_STRIDX_CALLER);$|\t/* duk-patch.sh: no own caller (ES2022) */|' \
    -e 's|^\tduk_xdef_prop_stridx_thrower(thr, -1, DUK_STRIDX_LC_ARGUMENTS);$|\t/* duk-patch.sh: no own arguments (ES2022) */|' \
    -e 's|^\tif (key == DUK_HTHREAD_STRING_CALLER(thr) \&\& DUK_TVAL_IS_OBJECT(tv_obj)) {$|\tif (0 /* duk-patch.sh: no ES5 caller rule (ES2015) */ \&\& key == DUK_HTHREAD_STRING_CALLER(thr)) {|' \
    -e 's|^\t\tif (nc_ctx->e > DUK__IEEE_DOUBLE_EXP_MIN /\*not minimum exponent\*/ \&\&$|\t\tif (nc_ctx->e > DUK__IEEE_DOUBLE_EXP_MIN - 52 /* duk-patch.sh: the minimum exponent of the 53-bit mantissa */ \&\&|' \
    -e 's|^\t\t\t\tif (duk__bi_compare(\&nc_ctx->t1, \&nc_ctx->s) < 0) { /\* (< (\* r 2) s) \*/$|\t\t\t\tif (duk__bi_compare(\&nc_ctx->t1, \&nc_ctx->s) < 0 \|\| (duk__bi_compare(\&nc_ctx->t1, \&nc_ctx->s) == 0 \&\& (d \& 1) == 0)) { /* duk-patch.sh: a tie takes the even digit */|' \
    -e 's|^\tif (!skip_round) {$|\tif (!skip_round \&\& !(bitround == nc_ctx->count - 1 \&\& nc_ctx->digits[bitround] == 1 \&\& (nc_ctx->digits[bitround - 1] \& 1) == 0 \&\& duk__bi_is_zero(\&nc_ctx->r))) { /* duk-patch.sh: an exact tie keeps the even mantissa */|' \
    -e 's|^\t\t\tc_nargs = (duk_small_int_t) duk_bd_decode_flagged_signed(bd, DUK__NARGS_BITS, len /\*def_value\*/);$|&\n\t\t\tif (c_func == duk_bi_error_constructor_shared) c_nargs = 2; /* duk-patch.sh: (message, options) */|' \
    -e 's|^\t/\* Augment the error if called as a normal function.  __FILE__ and __LINE__$|\tif (duk_is_object(thr, 1) \&\& duk_has_prop_string(thr, 1, "cause")) { duk_push_string(thr, "cause"); duk_get_prop_string(thr, 1, "cause"); duk_xdef_prop(thr, -3, DUK_PROPDESC_FLAGS_WC); } /* duk-patch.sh: InstallErrorCause (ES2022) */\n&|' \
    "$src"
