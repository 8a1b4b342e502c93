#!/bin/sh
# duk-config.sh SRC_CONFIG: prints Debian's duk_config.h (the default
# configuration of the Duktape source in /usr/share/duktape) with sandboxd's
# additions. Each sed expression must match exactly once; the build fails
# otherwise, so a changed upstream header cannot slip through unnoticed.
set -eu
src=$1
check() {
	n=$(grep -c "^$1\$" "$src" || true)
	if [ "$n" != 1 ]; then
		echo "duk-config.sh: expected one '$1' in $src, found $n" >&2
		exit 1
	fi
}
# The interrupt counter and the execution check: the engine stops a script
# that spends its CPU budget, even one that catches every exception.
check '#undef DUK_USE_INTERRUPT_COUNTER'
check '#undef DUK_USE_EXEC_TIMEOUT_CHECK'
# No bytecode dump or load: nothing can ever load bytecode.
check '#define DUK_USE_BYTECODE_DUMP_SUPPORT'
echo "/* Generated from $src by scripts/duk-config.sh. */"
sed -e 's|^#undef DUK_USE_INTERRUPT_COUNTER$|#define DUK_USE_INTERRUPT_COUNTER|' \
    -e 's|^#undef DUK_USE_EXEC_TIMEOUT_CHECK$|extern unsigned int engine_interrupt(void *udata);\n#define DUK_USE_EXEC_TIMEOUT_CHECK(udata) engine_interrupt((udata))|' \
    -e 's|^#define DUK_USE_BYTECODE_DUMP_SUPPORT$|#undef DUK_USE_BYTECODE_DUMP_SUPPORT|' \
    "$src"
