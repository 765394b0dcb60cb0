# himorime: build, test and install.
#
#   make                 build build/himorime and build/himorime-spawner
#   make test            unit tests (cmocka) and end-to-end tests (real processes)
#   make test-unit       the unit tests only (the Dockerfile)
#   make test-sanitize   the same tests with AddressSanitizer and UBSan (build-san/)
#   make lint            clang-format check, cppcheck, banned functions, include walls,
#                        names in comments, function length
#   make test-browser    screenshot the HTML report in headless Chromium and check it
#   make test-action     run action.yml and the workflows as a GitHub runner does
#   make demo            validate, list and run the built-in example suite
#   make fuzz            libFuzzer on the suite loader, the report reader and
#                        renderers, the event parser, the ELF size reader, the
#                        count-file readers, the harness output parsers
#                        (FUZZ_SECONDS each, build-fuzz/)
#   make install         PREFIX=/usr/local DESTDIR=

CC       ?= cc
PREFIX   ?= /usr/local
BUILD    ?= build
OPT      ?= -O2 -g
WERROR   ?= -Werror
SAN      ?=
PKGS     := yaml-0.1 libcjson libgit2 libcurl
# libcurl is loaded by the commands that publish, when they start, not linked
# (src/github/curl_api.h says why): its headers come from pkg-config as the
# others do, and the library opened is the one pkg-config names, by absolute
# path: its libdir and its SONAME.
LINKED   := yaml-0.1 libcjson libgit2
CURL_LIBDIR := $(shell pkg-config --variable=libdir libcurl)
CURL_SONAME := $(shell objdump -p $(CURL_LIBDIR)/libcurl.so \
	2>/dev/null | awk '$$1 == "SONAME" { print $$2 }')
ifeq ($(CURL_SONAME),)
$(error cannot read the SONAME of libcurl.so in pkg-config's libdir: run scripts/setup)
endif

WARN := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -Wformat=2 -Wswitch-enum -Wno-format-nonliteral
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(LINKED))
CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka)
CMOCKA_LIBS   := $(shell pkg-config --libs cmocka)

CPPFLAGS := -D_GNU_SOURCE -Isrc $(PKG_CFLAGS) -DHIMORIME_CURL_PATH='"$(CURL_LIBDIR)/$(CURL_SONAME)"'
CFLAGS   := $(WARN) $(WERROR) $(OPT) $(SAN)
LDFLAGS  := $(SAN)
# The dynamic loader searches an executable's DT_RPATH (not DT_RUNPATH,
# hence --disable-new-dtags) before LD_LIBRARY_PATH for every library loaded
# into it, libcurl's dependencies included: a directory that variable names
# cannot put a library of its own in their place (src/github/curl_api.h).
LIBS     := $(PKG_LIBS) -lm -Wl,--disable-new-dtags,-rpath,$(CURL_LIBDIR)

# Everything under src/<area>/ goes into one library except the CLI's main()
# and the spawner's main(): the spawner is its own static, libc-only executable
# whose engine (launch.c, proto.c) the library also uses when it cannot start.
LIB_SRC  := $(filter-out src/cli/main.c,$(wildcard src/*/*.c))
LIB_SRC  := $(filter-out src/spawner/main.c,$(LIB_SRC))
LIB_OBJ  := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRC))
# docs/schema/suite.schema.json compiled in as bytes: the schema `himorime
# init` writes beside a suite (src/cli/schema_text.h), from its one source.
SCHEMA_C := $(BUILD)/gen/cli/schema_text.c
LIB_OBJ  += $(BUILD)/obj/gen/cli/schema_text.o
TEST_SRC := $(wildcard tests/unit/test_*.c)
TEST_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRC))
SPAWNER_SRC := $(wildcard src/spawner/*.c)

all: $(BUILD)/himorime $(BUILD)/himorime-spawner

$(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(SCHEMA_C): docs/schema/suite.schema.json
	@mkdir -p $(dir $@)
	{ echo '#include "cli/schema_text.h"'; \
	  echo 'const unsigned char cli_suite_schema[] = {'; \
	  od -An -v -tx1 $< | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; \
	  echo 'const size_t cli_suite_schema_len = sizeof(cli_suite_schema);'; } >$@

$(BUILD)/obj/gen/cli/schema_text.o: $(SCHEMA_C) src/cli/schema_text.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/libhimorime.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/himorime: $(BUILD)/obj/cli/main.o $(BUILD)/libhimorime.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# The spawner is never instrumented: sanitizers cannot link a static binary,
# and its whole point is a tiny, predictable memory floor.
$(BUILD)/himorime-spawner: $(SPAWNER_SRC) $(wildcard src/spawner/*.h)
	@mkdir -p $(dir $@)
	$(CC) -D_GNU_SOURCE -Isrc $(WARN) $(WERROR) -O2 -static -o $@ $(SPAWNER_SRC)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libhimorime.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) -Wno-missing-prototypes -o $@ $< \
		$(BUILD)/libhimorime.a $(LDFLAGS) $(CMOCKA_LIBS) $(LIBS)

tests: $(TEST_BIN) $(BUILD)/tests/helpers

# Small helper programs that end-to-end tests run as measured commands;
# those named *_static are linked statically.
$(BUILD)/tests/helpers: $(wildcard tests/helpers/*.c)
	@mkdir -p $@
	@for f in $^; do n=$$(basename $$f .c); \
		case $$n in *_static) s=-static;; *) s=;; esac; \
		echo "$(CC) -O2 $$s -o $@/$$n $$f"; \
		$(CC) -D_GNU_SOURCE -O2 $$s -o $@/$$n $$f || exit 1; done
	@touch $@

test: all tests
	BUILD=$(BUILD) tests/run

# The unit tests alone (the Dockerfile's build stage; CI runs them all).
test-unit: all tests
	BUILD=$(BUILD) tests/run --unit

test-sanitize:
	$(MAKE) BUILD=build-san OPT="-O1 -g -fno-omit-frame-pointer" \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" test

lint:
	scripts/lint

# libFuzzer with ASan and UBSan (clang); see tests/fuzz/run.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := suite report event elf counts harness
fuzz:
	tests/fuzz/run $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Installs the Debian package chromium when missing; skips (exit 0, with a
# message) only when it cannot be installed.
test-browser: all
	BUILD=$(BUILD) tests/browser/run

# The runner check: the Action builds himorime itself, in its RUNNER_TEMP.
test-action:
	tests/action/run

demo: all
	$(BUILD)/himorime validate examples/himorime.yaml
	$(BUILD)/himorime list examples/himorime.yaml
	$(BUILD)/himorime run examples/himorime.yaml

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/himorime $(BUILD)/himorime-spawner $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf build build-san build-fuzz

.PHONY: all tests test test-unit test-sanitize test-browser test-action lint fuzz demo install clean
.DELETE_ON_ERROR:

-include $(LIB_OBJ:.o=.d) $(BUILD)/obj/cli/main.d
