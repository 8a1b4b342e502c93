/*
 * prescan.h - decides, from the tokens alone, whether a script may be
 * compiled by the engine as it is: whether its ES5.1 reading (Duktape's)
 * and its ES2022 reading are certainly the same.
 *
 * Duktape accepts some code that ES2022 reads differently or rejects:
 * `const` as `var`, sloppy `let [x] = v` as an assignment to `let[x]`,
 * destructuring assignment (`[a, b] = [b, a]`) as a run-time "invalid
 * lvalue", `**` without its early errors, function declarations in blocks
 * hoisted to the function, `var f = function(){}` without the name "f",
 * `{__proto__: p}` as an own property, escaped identifiers (escaped reserved
 * words), an initializer in a for-in head, invalid assignment targets
 * (`f() = 1`, `a + b = 1`) as run-time errors. Code with any of these goes
 * to the lowering instead, which reads it as ES2022 (and reports ES2022's
 * early errors as syntax errors).
 */
#ifndef SANDBOXD_PRESCAN_H
#define SANDBOXD_PRESCAN_H

#include <stddef.h>

/*
 * Scans len bytes of UTF-8 source (code need not be NUL-terminated).
 * NULL when the engine may compile it as it is: every construct whose
 * readings differ is absent, so either the engine compiles it and it means
 * what ES2022 says, or the engine rejects it. Otherwise a static string
 * naming the first construct found ("destructuring assignment", ...): the
 * code must be lowered. The answer errs only towards lowering: code the
 * scan cannot read (a lexical error, nesting deeper than
 * LIMIT_PRESCAN_DEPTH) is lowered too, so the lowering reports the error.
 * Linear in len; allocates nothing.
 */
const char *prescan_reason(const char *code, size_t len);

#endif
