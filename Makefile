# sandboxd - see README.md. `make run` and `make check` are all a new machine needs.

VERSION    := 0.1.0
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
UNITDIR    ?= /lib/systemd/system
DOCDIR     ?= $(PREFIX)/share/doc/sandboxd
DESTDIR    ?=

CC         ?= cc
PKG_CONFIG ?= pkg-config
CFLAGS     ?= -O2 -g
WARNINGS   := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
              -Wformat=2 -Wconversion -Wno-sign-conversion
CPPFLAGS   += -D_GNU_SOURCE -DSANDBOXD_VERSION='"$(VERSION)"'
# Full RELRO and every symbol bound at start-up: workers are clones of the
# forkserver, and a lazily bound symbol would be resolved again (and its GOT
# page copied) in every one of them.
LDFLAGS    += -Wl,-z,relro,-z,now
# SANITIZE=address,undefined builds everything with those sanitizers.
ifneq ($(SANITIZE),)
CFLAGS     += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS    += -fsanitize=$(SANITIZE)
endif

# Resolved lazily: pkg-config may only exist after `make deps`.
LIB_PKGS    = libseccomp jansson libcap nettle
LIB_CFLAGS  = $(shell $(PKG_CONFIG) --cflags $(LIB_PKGS) 2>/dev/null)
LIB_LIBS    = $(shell $(PKG_CONFIG) --libs $(LIB_PKGS) 2>/dev/null)
JSON_LIBS   = $(shell $(PKG_CONFIG) --libs jansson 2>/dev/null)
CHECK_CFLAGS = $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS  = $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

ALL_CFLAGS  = $(WARNINGS) $(CFLAGS) -Ibuild/duktape $(LIB_CFLAGS) $(CHECK_CFLAGS)

# Duktape is built here from the source Debian's duktape-dev installs, with
# sandboxd's configuration additions (scripts/duk-config.sh): the prebuilt
# library lacks the interrupt check that enforces the CPU budget. Changes to
# what the engine means are in scripts/duk-patch.sh.
DUK_SRC    ?= /usr/share/duktape
DUK_GEN    := build/duktape/duk_config.h build/duktape/duktape.h build/duktape/duktape.c

PROTOCOL := protocol/buf.c protocol/frame.c protocol/utf8.c protocol/status.c protocol/source.c \
            protocol/request.c protocol/msg.c protocol/ctl.c protocol/io.c \
            protocol/jsonv.c protocol/jstr.c protocol/size.c
# JSON written and read with JavaScript's numbers (protocol/jnum.c); the
# suites below that link modules writing or reading values link it too.
PROTOCOL += protocol/jnum.c
JNUM     := protocol/jnum.c protocol/jstr.c protocol/utf8.c protocol/buf.c
WORKER   := worker/engine.c worker/store.c worker/confine.c worker/worker.c \
            worker/forkserver.c worker/prescan.c
# JavaScript the worker loads, embedded as C arrays, and the engine itself.
JS_OBJS  := build/gen/js_harness.o build/gen/js_polyfills.o build/gen/js_acorn.o \
            build/gen/js_typescript.o build/gen/js_lower.o build/gen/js_runtime.o \
            build/duktape/duktape.o
JS_OBJS  += build/gen/js_url.o
# util.inspect and util.format, which the console prints through.
JS_OBJS  += build/gen/js_inspect.o
# The built-ins of ES2017-ES2024 beyond the polyfills, and AbortController.
JS_OBJS  += build/gen/js_builtins.o build/gen/js_abort.o build/gen/js_normtables.o
# The web globals: DOMException, structuredClone, atob/btoa, crypto (worker/js/web.js).
JS_OBJS  += build/gen/js_web.o
JS_OBJS  += build/gen/js_console.o
JS_OBJS  += build/gen/js_timers.o
ACORN    ?= /usr/share/nodejs/acorn/dist/acorn.js
SERVER   := server/main.c server/config.c server/log.c server/loop.c server/listen.c \
            server/conn.c server/notify.c server/ops.c server/exec.c server/run.c \
            server/registry.c server/sched.c server/spawn.c server/uidpool.c server/cache.c \
            server/decl.c server/owner.c server/parse.c
# The cache of lowered code (server/lcache.h).
SERVER   += server/lcache.c
CTL      := client/sandboxctl.c
# client/: the programs that talk to the daemon and the connection module
# they share; it depends on protocol/ only.
CLIENT   := client/sdc.c

comma := ,
obj = $(patsubst %.c,build/%.o,$(1)) $(if $(filter worker/engine.c,$(1)),$(JS_OBJS))

# The MCP bridge's core: its main, JSON-RPC and the MCP lifecycle, its loop.
MCP  := client/mcp_main.c client/mcp_rpc.c client/ploop.c
BINS := bin/sandboxd bin/sandboxctl bin/sandboxd-mcp
UNIT_TESTS := check_frame check_utf8 check_request check_loop check_engine check_lower check_confine \
              check_cache check_polyfills check_decl check_sched check_owner check_uidpool \
              check_jsonv check_run check_jstr check_mcp_rpc check_ploop check_node
# The MCP bridge's tools: bin/sandboxd-mcp links MCP_TOOLS (with sdc, ploop
# and mcp_rpc); check_mcp_tools tests the pure half.
MCP_TOOLS := client/mcp_tools.c client/mcp_toolrun.c
UNIT_TESTS += check_mcp_tools
# Code mode over upstream MCP servers (the bridge's client/mcp_config, mcp_names,
# mcp_upstream; check_mcp_upstream runs tests/mcp_stub.c as the upstream server).
UNIT_TESTS += check_mcp_config check_mcp_names
# One worker's run alone (server/run.c) with a fake spawner.
UNIT_TESTS += check_runmod
# The ES5 fast path's pre-scan alone (worker/prescan.c).
UNIT_TESTS += check_prescan
# JSON with JavaScript's numbers (protocol/jnum.c).
UNIT_TESTS += check_jnum
# Syntax errors in plain words with the caret line, and the lowering's
# run-time errors in Node's words (tests/data/syntax.txt).
UNIT_TESTS += check_syntax
# Client connections (server/conn.c) alone, over a socketpair; the
# daemon's options (server/config.c).
UNIT_TESTS += check_conn check_config
# The web globals (worker/js/web.js) against Node's values and crypto's randomness.
UNIT_TESTS += check_web
# URL and URLSearchParams (worker/js/url.js) against Node's.
UNIT_TESTS += check_url
# The registry (server/registry.c with the loop), and the control channel
# both ways (protocol/ctl.c's checks; the job and answers as the worker reads them).
UNIT_TESTS += check_registry check_ctl
# bin/sandboxd-mcp links CODEMODE for --config.
UPSTREAM := client/mcp_upstream.c client/mcp_names.c client/mcp_config.c
CODEMODE := client/mcp_codemode.c $(UPSTREAM)
INT_TESTS  := check_daemon check_lifecycle check_codemode check_cli check_corpus check_tenancy \
              check_workers check_fds check_hostile check_bounds check_faults check_sdc
# bin/sandboxd-mcp on pipes, as a host runs it.
INT_TESTS  += check_mcp_main
INT_TESTS  += check_mcp_upstream check_mcp_codemode
# The MCP bridge's tools against the real daemon.
INT_TESTS  += check_mcp_bridge
# Values, tool arguments, the store and error.data as JSON.stringify
# writes them, read off the wire.
INT_TESTS  += check_values
# Timers and the event loop in confined workers.
INT_TESTS  += check_timers
# The cache of lowered code: the module alone, then the daemon's use of it.
INT_TESTS  += check_lcache
# The warm pool of parked workers (server/spawn.c).
INT_TESTS  += check_pool
# Fuzz targets (tests/fuzz/): built with clang and libFuzzer by `make fuzz`;
# built with $(CC) and a replay driver, each runs its seed and crash corpora
# as a unit suite of `make check`.
FUZZ_TARGETS := frame request ctl decl source cache jstr
# The bridge's readers of what the host, upstream servers and --config send.
FUZZ_TARGETS += mcp
FUZZ_REPLAY  := $(addprefix fuzz_,$(FUZZ_TARGETS))
TESTS := $(addprefix build/tests/,$(UNIT_TESTS) $(FUZZ_REPLAY) $(INT_TESTS))

.PHONY: all deps run check check-unit bench soak test262 fuzz fault faults install uninstall clean format lint

all: $(BINS)

deps:
	@sh scripts/deps.sh

build/%.o: %.c | $(DUK_GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

build/duktape/duk_config.h: $(DUK_SRC)/duk_config.h scripts/duk-config.sh
	@mkdir -p $(dir $@)
	sh scripts/duk-config.sh $< > $@.tmp && mv $@.tmp $@

build/duktape/duktape.h: $(DUK_SRC)/duktape.h
	@mkdir -p $(dir $@)
	cp $< $@

# The engine's functions as ES2022 has them (scripts/duk-patch.sh).
build/duktape/duktape.c: $(DUK_SRC)/duktape.c scripts/duk-patch.sh
	@mkdir -p $(dir $@)
	sh scripts/duk-patch.sh $< > $@.tmp && mv $@.tmp $@

# Third-party code: built as it is, without our warning set.
build/duktape/duktape.o: $(DUK_GEN)
	$(CC) $(CFLAGS) -w -c -o $@ build/duktape/duktape.c

# acorn with identifier tables of the Unicode version ES2022 asks for (the
# latest), in place of those it was built with: see scripts/unicode-id.js.
build/gen/acorn.js: $(ACORN) worker/js/acorn-unicode.js scripts/acorn-unicode.sh
	@mkdir -p $(dir $@)
	sh scripts/acorn-unicode.sh $(ACORN) worker/js/acorn-unicode.js > $@.tmp && mv $@.tmp $@

build/gen/js_acorn.c: build/gen/acorn.js scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh js_acorn $< > $@

build/gen/js_%.c: worker/js/%.js scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh js_$* $< > $@

build/gen/%.o: build/gen/%.c
	$(CC) $(CFLAGS) -c -o $@ $<

bin/sandboxd: $(call obj,$(SERVER) $(WORKER) $(PROTOCOL))
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(LIB_LIBS) -lpthread -lm

bin/sandboxctl: $(call obj,$(CTL) $(CLIENT) $(PROTOCOL))
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(JSON_LIBS) -lm

bin/sandboxd-mcp: $(call obj,$(MCP) $(MCP_TOOLS) $(CODEMODE) $(CLIENT) $(PROTOCOL))
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(JSON_LIBS) -lm

# The daemon with tests/fault.c between it and the calls it makes, which
# fail by count as SANDBOXD_FAULT says (see tests/fault.c).
FAULT_WRAP := malloc calloc realloc strdup strndup vasprintf pipe2 socketpair accept4 write \
              send sendmsg fsync renameat syscall
bin/sandboxd-fault: $(call obj,$(SERVER) $(WORKER) $(PROTOCOL) tests/fault.c)
	@mkdir -p bin
	$(CC) $(LDFLAGS) -rdynamic $(addprefix -Wl$(comma)--wrap=,$(FAULT_WRAP)) -o $@ $^ $(LIB_LIBS) \
	    -lpthread -lm

fault: deps
	@$(MAKE) --no-print-directory bin/sandboxd-fault

# The fault sweep with FAULT_POINTS counts per kind (`make check` runs 12).
FAULT_POINTS ?= 400
faults: deps
	@$(MAKE) --no-print-directory $(BINS) bin/sandboxd-fault build/tests/check_faults
	@SANDBOXD_FAULT_POINTS=$(FAULT_POINTS) build/tests/check_faults

# Each suite links the modules it tests, plus the shared test helpers.
TESTLIB := $(call obj,tests/testlib.c $(CLIENT))
build/tests/check_frame: $(call obj,tests/check_frame.c protocol/frame.c protocol/buf.c)
build/tests/check_utf8: $(call obj,tests/check_utf8.c protocol/utf8.c protocol/buf.c)
build/tests/check_request: $(call obj,tests/check_request.c protocol/request.c protocol/jsonv.c protocol/status.c protocol/msg.c protocol/jstr.c protocol/buf.c protocol/frame.c protocol/jnum.c protocol/utf8.c)
build/tests/check_loop: $(call obj,tests/check_loop.c server/loop.c)
build/tests/check_engine: $(call obj,tests/check_engine.c $(WORKER) $(PROTOCOL))
build/tests/check_polyfills: $(call obj,tests/check_polyfills.c tests/nodecases.c $(WORKER) $(PROTOCOL))
build/tests/check_lower: $(call obj,tests/check_lower.c tests/nodecases.c $(WORKER) $(PROTOCOL))
build/tests/check_web: $(call obj,tests/check_web.c tests/nodecases.c $(WORKER) $(PROTOCOL))
build/tests/check_url: $(call obj,tests/check_url.c tests/nodecases.c $(WORKER) $(PROTOCOL))
build/tests/check_node: $(call obj,tests/check_node.c tests/nodecases.c $(WORKER) $(PROTOCOL))
build/tests/check_decl: $(call obj,tests/check_decl.c server/decl.c $(JNUM))
build/tests/check_jsonv: $(call obj,tests/check_jsonv.c protocol/jsonv.c protocol/ctl.c $(JNUM))
build/tests/check_jstr: $(call obj,tests/check_jstr.c protocol/msg.c protocol/frame.c protocol/status.c $(JNUM))
build/tests/check_run: $(call obj,tests/check_run.c server/run.c server/parse.c server/exec.c server/registry.c server/sched.c server/owner.c server/loop.c server/log.c $(PROTOCOL)) $(call obj,server/lcache.c)
build/tests/check_runmod: $(call obj,tests/check_runmod.c server/run.c server/parse.c server/loop.c server/log.c $(PROTOCOL))
build/tests/check_confine: $(call obj,tests/check_confine.c worker/confine.c)
build/tests/check_prescan: $(call obj,tests/check_prescan.c worker/prescan.c)
build/tests/check_jnum: $(call obj,tests/check_jnum.c $(JNUM))
build/tests/check_mcp_tools: $(call obj,tests/check_mcp_tools.c client/mcp_tools.c $(JNUM))
build/tests/check_syntax: $(call obj,tests/check_syntax.c tests/nodecases.c $(WORKER) $(PROTOCOL))
build/tests/check_mcp_bridge: $(call obj,tests/check_mcp_bridge.c $(MCP_TOOLS) client/mcp_rpc.c \
    client/ploop.c client/sdc.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_sched: $(call obj,tests/check_sched.c server/sched.c)
build/tests/check_registry: $(call obj,tests/check_registry.c server/registry.c server/loop.c server/log.c)
build/tests/check_ctl: $(call obj,tests/check_ctl.c $(WORKER) $(PROTOCOL))
build/tests/check_conn: $(call obj,tests/check_conn.c server/conn.c server/loop.c server/log.c server/owner.c server/parse.c $(PROTOCOL))
build/tests/check_config: $(call obj,tests/check_config.c server/config.c server/log.c server/owner.c $(PROTOCOL))
build/tests/check_owner: $(call obj,tests/check_owner.c server/owner.c)
build/tests/check_uidpool: $(call obj,tests/check_uidpool.c server/uidpool.c)
build/tests/check_mcp_rpc: $(call obj,tests/check_mcp_rpc.c client/mcp_rpc.c $(JNUM))
build/tests/check_ploop: $(call obj,tests/check_ploop.c client/ploop.c)
build/tests/check_mcp_config: $(call obj,tests/check_mcp_config.c client/mcp_config.c)
build/tests/check_mcp_names: $(call obj,tests/check_mcp_names.c client/mcp_names.c $(JNUM))
build/tests/check_mcp_upstream: $(call obj,tests/check_mcp_upstream.c $(UPSTREAM) client/ploop.c) $(TESTLIB) $(call obj,$(PROTOCOL)) | build/tests/mcp_stub
build/tests/check_mcp_codemode: $(call obj,tests/check_mcp_codemode.c $(CODEMODE) $(MCP_TOOLS) client/mcp_rpc.c client/ploop.c) $(TESTLIB) $(call obj,$(PROTOCOL)) | build/tests/mcp_stub
build/tests/mcp_stub: $(call obj,tests/mcp_stub.c)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(JSON_LIBS)
build/tests/check_cache: $(call obj,tests/check_cache.c server/cache.c server/loop.c server/log.c protocol/buf.c)
build/tests/check_daemon: $(call obj,tests/check_daemon.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_lifecycle: $(call obj,tests/check_lifecycle.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_codemode: $(call obj,tests/check_codemode.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_timers: $(call obj,tests/check_timers.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_cli: $(call obj,tests/check_cli.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_corpus: $(call obj,tests/check_corpus.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_tenancy: $(call obj,tests/check_tenancy.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_lcache: $(call obj,tests/check_lcache.c server/lcache.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_workers: $(call obj,tests/check_workers.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_fds: $(call obj,tests/check_fds.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_pool: $(call obj,tests/check_pool.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_hostile: $(call obj,tests/check_hostile.c tests/hostile.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_bounds: $(call obj,tests/check_bounds.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_faults: $(call obj,tests/check_faults.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_sdc: $(call obj,tests/check_sdc.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_values: $(call obj,tests/check_values.c) $(TESTLIB) $(call obj,$(PROTOCOL))
build/tests/check_mcp_main: $(call obj,tests/check_mcp_main.c) $(TESTLIB) $(call obj,$(PROTOCOL)) | build/tests/mcp_stub

# The fuzz targets' modules, one list per target.
FUZZ_SRC_frame   := protocol/frame.c protocol/buf.c
FUZZ_SRC_request := protocol/request.c protocol/jsonv.c protocol/status.c protocol/msg.c protocol/jstr.c \
                    protocol/buf.c \
                    protocol/frame.c protocol/jnum.c protocol/utf8.c
FUZZ_SRC_ctl     := protocol/ctl.c protocol/jsonv.c protocol/frame.c $(JNUM)
FUZZ_SRC_decl    := server/decl.c $(FUZZ_SRC_request)
FUZZ_SRC_source  := protocol/source.c
FUZZ_SRC_cache   := server/cache.c server/loop.c server/log.c protocol/buf.c
FUZZ_SRC_jstr    := protocol/jstr.c protocol/msg.c protocol/utf8.c protocol/status.c protocol/frame.c \
                    protocol/buf.c protocol/jnum.c
FUZZ_SRC_mcp     := client/mcp_rpc.c client/mcp_names.c client/mcp_config.c $(JNUM)
define fuzz_rules
build/tests/fuzz_$(1): $$(call obj,tests/fuzz/fuzz_$(1).c $$(FUZZ_SRC_$(1))) build/tests/fuzz/replay_$(1).o
build/fuzz/fuzz_$(1): $$(patsubst %.c,build/fuzz/%.o,tests/fuzz/fuzz_$(1).c $$(FUZZ_SRC_$(1)))
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_rules,$(t))))

build/tests/fuzz/replay_%.o: tests/fuzz/replay.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -DFUZZ_NAME='"$*"' -MMD -MP -c -o $@ $<

# Runs a program under a system call allow list (scripts/check-unit.sh).
build/tests/syscall_allow: $(call obj,tests/syscall_allow.c)

$(TESTS) build/tests/bench build/tests/soak build/tests/syscall_allow: build/tests/%:
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIB_LIBS) $(CHECK_LIBS) -lpthread -lm

# Integration suites find the binaries through these.
export SANDBOXD_BIN := $(CURDIR)/bin/sandboxd
export SANDBOXCTL_BIN := $(CURDIR)/bin/sandboxctl
export SANDBOXD_MCP_BIN := $(CURDIR)/bin/sandboxd-mcp
export SANDBOXD_FAULT_BIN := $(CURDIR)/bin/sandboxd-fault
export SANDBOXD_FUZZ_DIR := $(CURDIR)/tests/fuzz
export SANDBOXD_MCP_STUB := $(CURDIR)/build/tests/mcp_stub

# The MCP interop suite (tests/mcp/run.sh: Node, the official SDK and the
# Inspector CLI, installed by npm ci from tests/mcp/package-lock.json) runs
# after the C suites; MCP_INTEROP= skips it.
MCP_INTEROP ?= $(CURDIR)/tests/mcp/run.sh

# The unit's checks run after the suites, and fail the target as they do.
check: deps
	@$(MAKE) --no-print-directory $(BINS) bin/sandboxd-fault $(TESTS) build/tests/syscall_allow
	@rc=0; SANDBOXD_MCP_INTEROP=$(MCP_INTEROP) sh scripts/run-tests.sh $(TESTS) || rc=1; \
	 echo "== sandboxd.service"; \
	 sh scripts/check-unit.sh sandboxd.service sandboxd.socket $(CURDIR)/bin \
	    $(CURDIR)/build/tests/syscall_allow || rc=1; exit $$rc

# make check-unit SUITES=1 also runs the integration suites with their
# daemons under the unit's system call filter.
check-unit: $(BINS) build/tests/syscall_allow $(if $(SUITES),$(addprefix build/tests/,$(INT_TESTS)))
	@sh scripts/check-unit.sh sandboxd.service sandboxd.socket $(CURDIR)/bin \
	    $(CURDIR)/build/tests/syscall_allow \
	    $(if $(SUITES),$(addprefix $(CURDIR)/build/tests/,$(INT_TESTS)))

build/tests/bench: $(call obj,tests/bench.c tests/hostile.c) $(TESTLIB) $(call obj,$(WORKER) $(PROTOCOL))

# libFuzzer needs clang; the objects are built apart from the normal ones.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= 1
FUZZ_CFLAGS  := -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
                -fno-sanitize-recover=undefined
FUZZ_BINS    := $(addprefix build/fuzz/,$(FUZZ_REPLAY))

build/fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(WARNINGS) $(FUZZ_CFLAGS) $(LIB_CFLAGS) -MMD -MP -c -o $@ $<

$(FUZZ_BINS): build/fuzz/%:
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LIB_LIBS) -lpthread -lm

# `make fuzz FUZZ_SECONDS=900` runs each target for 15 minutes (FUZZ_JOBS
# at a time); FUZZ_TARGETS picks some.
fuzz:
	@sh scripts/deps.sh fuzz
	@$(MAKE) --no-print-directory $(FUZZ_BINS)
	@sh scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_JOBS) $(FUZZ_TARGETS)

# `make bench BASELINE=REV` builds REV under build/baseline/ with its own
# Makefile (scripts/bench-baseline.sh) and measures its daemon beside the
# working tree's, BENCH_ROUNDS rounds of each (default 3), alternating.
BASELINE     ?=
BENCH_ROUNDS ?= 3
bench: deps
	@$(MAKE) --no-print-directory $(BINS) build/tests/bench
ifeq ($(BASELINE),)
	@BENCH=$(BENCH) build/tests/bench
else
	@mkdir -p build/baseline
	@MAKE='$(MAKE)' sh scripts/bench-baseline.sh '$(BASELINE)' >build/baseline/last
	@BENCH_BASELINE="$(CURDIR)/$$(cat build/baseline/last)" BENCH_BASELINE_REV='$(BASELINE)' \
	BENCH_ROUNDS='$(BENCH_ROUNDS)' build/tests/bench
endif

# make soak N=1000000: N mixed executions, then zombies, fds and RSS checked.
N ?= 100000
build/tests/soak: $(call obj,tests/soak.c tests/hostile.c) $(TESTLIB) $(call obj,$(PROTOCOL))

soak: deps
	@$(MAKE) --no-print-directory $(BINS) build/tests/soak
	@N=$(N) build/tests/soak

# make test262 TEST262=DIR [TEST262_PATHS="language/expressions/class ..."]:
# the conformance suite (a tc39/test262 checkout) run through the daemon,
# pass rates per area (tests/test262/: the areas, the skipped features).
build/tests/test262: $(call obj,tests/test262.c $(CLIENT) $(PROTOCOL))
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIB_LIBS)

test262: deps
	@$(MAKE) --no-print-directory $(BINS) build/tests/test262
	@TEST262="$(TEST262)" sh scripts/test262.sh $(TEST262_PATHS)

run: deps
	@$(MAKE) -s --no-print-directory $(BINS)
	@mkdir -p run
	exec bin/sandboxd --socket run/sandboxd.sock --cache-dir run/scripts

install: $(BINS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR)
	install -m 0755 bin/sandboxd bin/sandboxctl bin/sandboxd-mcp $(DESTDIR)$(BINDIR)/
	sed 's|@BINDIR@|$(BINDIR)|g; s|@DOCDIR@|$(DOCDIR)|g' sandboxd.service \
	    > $(DESTDIR)$(UNITDIR)/sandboxd.service
	sed 's|@DOCDIR@|$(DOCDIR)|g' sandboxd.socket > $(DESTDIR)$(UNITDIR)/sandboxd.socket
	install -m 0644 README.md protocol/PROTOCOL.md $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/sandboxd $(DESTDIR)$(BINDIR)/sandboxctl $(DESTDIR)$(BINDIR)/sandboxd-mcp \
	      $(DESTDIR)$(UNITDIR)/sandboxd.service $(DESTDIR)$(UNITDIR)/sandboxd.socket
	rm -rf $(DESTDIR)$(DOCDIR)

format:
	clang-format -i */*.c */*.h

# jansson.h is read so that its foreach macros parse.
lint:
	cppcheck --quiet --enable=warning,performance,portability --error-exitcode=1 \
	    --suppress=missingIncludeSystem -I protocol --include=/usr/include/jansson.h \
	    protocol worker server client tests

clean:
	rm -rf build bin

# Not those of a baseline `make bench` built under build/baseline/: its
# rules name the other revision's files.
-include $(shell find build -path build/baseline -prune -o -name '*.d' -print 2>/dev/null)
