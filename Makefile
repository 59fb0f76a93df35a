# strata build.  `make` builds build/stratad and the tools; `make test` runs every test (see tests/run).
# Sources are found by wildcard: a new file under src/<box>/ joins libstrata.a, a new tests/unit/test_*.c
# becomes a unit-test binary, a new tools/*.c a tool, a new tests/fuzz/fuzz_*.c a libFuzzer target.
#   make SAN=1          ASan+UBSan build into build-san/, with the fault-injection seam (util/fio.h)
#   make fuzz           libFuzzer targets into build-fuzz/ (clang)

CC      ?= cc
SAN     ?= 0
ifeq ($(SAN),1)
BUILD   ?= build-san
OPT     ?= -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD   ?= build
OPT     ?= -O2
endif
# The fault-injection seam (util/fio.h) is compiled into test builds only: SAN=1 has it, the release build not.
FAULTS  ?= $(SAN)
ifeq ($(FAULTS),1)
CFLAGS  += -DSTRATA_FAULTS
endif
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter -g -pthread -Isrc $(OPT) -MMD -MP
LDFLAGS += $(OPT) -pthread -rdynamic
LDLIBS  += -lpcre2-8 -lzstd -lz -lssl -lcrypto -lxxhash -lm -lmariadb -lmicrohttpd -lcurl
# MariaDB Connector/C (libmariadb-dev): only the replica's connection to its source and the monitor's to the other
# servers of the fleet include it, so its headers
# (my_global.h, errmsg.h ...) never shadow anything elsewhere.
MARIADB_CFLAGS := $(shell mariadb_config --include 2>/dev/null || echo -I/usr/include/mariadb)

LIB_SRCS  := $(sort $(wildcard src/*/*.c src/*/*/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_SRCS := $(sort $(wildcard tools/*.c))
TOOL_BINS := $(TOOL_SRCS:tools/%.c=$(BUILD)/%)
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))

all: $(BUILD)/stratad $(TOOL_BINS) $(UNIT_BINS) $(BUILD)/tests/powerloss.so

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/src/repl/replica.o $(BUILD)/src/monitor/fleet.o: CFLAGS += $(MARIADB_CFLAGS)

# The dashboard's files are assembled into this object (.incbin), which -MMD does not see.
$(BUILD)/src/monitor/http_assets.o: $(wildcard src/monitor/www/*)

$(BUILD)/libstrata.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/stratad: $(BUILD)/src/main.o $(BUILD)/libstrata.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(BUILD)/libstrata.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%: $(BUILD)/tools/%.o $(BUILD)/libstrata.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The power-loss shim (tests/powerloss): an LD_PRELOAD library for tests, never linked into anything, built
# without sanitizers (it sits in front of the sanitizer runtime's own wrappers).
$(BUILD)/tests/powerloss.so: tests/powerloss/powerloss.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -fPIC -shared -pthread -o $@ $< -ldl

# libFuzzer targets: clang only, library rebuilt with fuzzer instrumentation.
FUZZ_BUILD := build-fuzz
fuzz:
	$(MAKE) CC=clang BUILD=$(FUZZ_BUILD) OPT="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer" $(FUZZ_BUILD)/libstrata.a
	@for f in $(FUZZ_SRCS); do n=$$(basename $$f .c); \
	  echo "clang $$f -> $(FUZZ_BUILD)/$$n"; \
	  clang -std=c11 -D_GNU_SOURCE -g -O1 -Isrc -fsanitize=fuzzer,address,undefined $$f $(FUZZ_BUILD)/libstrata.a -o $(FUZZ_BUILD)/$$n $(LDLIBS) -pthread || exit 1; done

test:
	tests/run

clean:
	rm -rf build build-san build-fuzz

.PHONY: all fuzz test clean
.SECONDARY:
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
