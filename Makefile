# counterpoint: one plain Makefile.  `make deps` installs, `make` builds,
# `make test` runs every test (plain and sanitized) and ends with
# "N passed, N failed".  Quiet unless V=1.

CC      ?= cc
FUZZCC  ?= clang
V       ?= 0
Q        = $(if $(filter 1,$(V)),,@)

# Warnings as one named list; relaxed only for flex/bison output.
WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wwrite-strings -Wundef -Wformat-security
# The numeric modules also catch silent narrowing and float promotion.
NUMWARN  = -Wconversion -Wdouble-promotion
NUMERIC  = geometry/% stats/% solver/% pipeline/% report/%
GENWARN  = -Wall -Wextra -Werror -Wno-unused-function -Wno-sign-compare \
           -Wno-missing-prototypes -Wno-unused-parameter
BASEFLAGS = -std=c11 -D_GNU_SOURCE -I. -Ibuild/gen -MMD -MP
CFLAGS  ?= -O2 -g
ASANFLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=all
LIBS     = -lglpk -lqhull_r -lgmp -llapacke -lopenblas -lgsl -lgslcblas \
           -lpfm -lpthread -lm

# Debian packages: every one the project needs, in one place.
DEPS_PKGS = build-essential flex bison libglpk-dev libqhull-dev libgmp-dev \
            liblapacke-dev libopenblas-dev libgsl-dev libpfm4-dev graphviz \
            clang libclang-rt-14-dev linux-perf valgrind binutils python3 \
            xz-utils chromium

# ---- sources ----
MODULES  = common dsl geometry stats solver pipeline explore report hw hw/sim
LIB_SRC  = $(foreach m,$(MODULES),$(wildcard $(m)/*.c))
GEN_SRC  = $(if $(wildcard dsl/parser.y),build/gen/dsl/lexer.c build/gen/dsl/parser.c)
GEN_HDR  = $(if $(wildcard dsl/parser.y),build/gen/dsl/parser.h)
CLI_SRC  = $(wildcard cli/*.c)
UNIT_SRC = $(wildcard tests/unit/test_*.c)
BENCH_SRC = $(wildcard bench/*.c)

LIB_OBJ  = $(LIB_SRC:%.c=build/obj/%.o) $(GEN_SRC:build/gen/%.c=build/obj/gen/%.o)
CLI_OBJ  = $(CLI_SRC:%.c=build/obj/%.o)
ALIB_OBJ = $(LIB_SRC:%.c=build/asan/obj/%.o) $(GEN_SRC:build/gen/%.c=build/asan/obj/gen/%.o)
ACLI_OBJ = $(CLI_SRC:%.c=build/asan/obj/%.o)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=build/tests/%)
AUNIT_BIN = $(UNIT_SRC:tests/unit/%.c=build/asan/tests/%)
BENCH_BIN = $(BENCH_SRC:bench/%.c=build/bench/%)

LIB      = build/libcounterpoint.a
ALIB     = build/asan/libcounterpoint.a
BIN      = bin/counterpoint
ABIN     = build/asan/counterpoint

.SECONDARY:
.PHONY: all deps test unit asan fuzz fuzz-build bench check-symbols check-layers clean
all: $(BIN) $(LIB)

deps:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEPS_PKGS)

# ---- generated parser ----
# One bison run makes both files: a grouped target (&:, GNU make 4.3), so
# that make -j never runs two bisons writing the same files at once.
build/gen/dsl/parser.c build/gen/dsl/parser.h &: dsl/parser.y
	@mkdir -p $(@D)
	@echo "  BISON   $<"
	$(Q)bison -Wall -Werror --defines=build/gen/dsl/parser.h -o build/gen/dsl/parser.c $<
build/gen/dsl/lexer.c: dsl/lexer.l $(GEN_HDR)
	@mkdir -p $(@D)
	@echo "  FLEX    $<"
	$(Q)flex -o $@ $<

# ---- plain build ----
build/obj/gen/%.o: build/gen/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(BASEFLAGS) $(CFLAGS) $(GENWARN) -c -o $@ $<
build/obj/%.o: %.c | $(GEN_HDR)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(BASEFLAGS) $(CFLAGS) $(WARN) $(if $(filter $(NUMERIC),$<),$(NUMWARN)) -c -o $@ $<
$(LIB): $(LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^
$(BIN): $(CLI_OBJ) $(LIB)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LIBS)
build/tests/%: build/obj/tests/unit/%.o $(LIB)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(LIB) $(LIBS)
build/bench/%: build/obj/bench/%.o $(LIB)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(LIB) $(LIBS)

# ---- sanitizer build, in its own folder so objects never mix ----
build/asan/obj/gen/%.o: build/gen/%.c
	@mkdir -p $(@D)
	@echo "  CC/ASAN $<"
	$(Q)$(CC) $(BASEFLAGS) $(ASANFLAGS) $(GENWARN) -c -o $@ $<
build/asan/obj/%.o: %.c | $(GEN_HDR)
	@mkdir -p $(@D)
	@echo "  CC/ASAN $<"
	$(Q)$(CC) $(BASEFLAGS) $(ASANFLAGS) $(WARN) $(if $(filter $(NUMERIC),$<),$(NUMWARN)) -c -o $@ $<
$(ALIB): $(ALIB_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^
$(ABIN): $(ACLI_OBJ) $(ALIB)
	$(Q)$(CC) $(ASANFLAGS) -o $@ $(ACLI_OBJ) $(ALIB) $(LIBS)
build/asan/tests/%: build/asan/obj/tests/unit/%.o $(ALIB)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ASANFLAGS) -o $@ $< $(ALIB) $(LIBS)

# ---- tests ----
unit: $(UNIT_BIN)
asan: $(AUNIT_BIN) $(ABIN)
# fuzz-build too: the fuzz targets are built (with clang) and replay their
# seed corpora, so a target that no longer compiles fails make test.
test: all unit asan fuzz-build check-symbols check-layers
	$(Q)LC_ALL=C sh tests/run.sh

# Modules include only the headers of modules below them (docs/architecture.md).
check-layers:
	$(Q)sh tests/check-layers.sh .

# Every exported symbol carries its module's prefix.
check-symbols: $(LIB_OBJ) $(CLI_OBJ)
	$(Q)sh tests/check-symbols.sh build/obj

bench: $(BENCH_BIN)

# ---- fuzzing (libFuzzer): make fuzz FUZZ_TIME=600 [FUZZ_TARGETS=fuzz_x] ----
FUZZ_TIME ?= 60
FUZZ_SRC  = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN  = $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
FUZZ_TARGETS ?= $(FUZZ_SRC:tests/fuzz/%.c=%)
FUZZFLAGS = -O1 -g -fsanitize=fuzzer-no-link,address,undefined
build/fuzz/obj/gen/%.o: build/gen/%.c
	@mkdir -p $(@D)
	$(Q)$(FUZZCC) $(BASEFLAGS) $(FUZZFLAGS) -w -c -o $@ $<
build/fuzz/obj/%.o: %.c | $(GEN_HDR)
	@mkdir -p $(@D)
	$(Q)$(FUZZCC) $(BASEFLAGS) $(FUZZFLAGS) $(WARN) -c -o $@ $<
build/fuzz/%: build/fuzz/obj/tests/fuzz/%.o $(LIB_SRC:%.c=build/fuzz/obj/%.o) $(GEN_SRC:build/gen/%.c=build/fuzz/obj/gen/%.o)
	@mkdir -p $(@D)
	$(Q)$(FUZZCC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LIBS)
fuzz-build: $(FUZZ_BIN)
fuzz: $(FUZZ_TARGETS:%=build/fuzz/%)
	@mkdir -p build/fuzz/findings
	@for n in $(FUZZ_TARGETS); do \
	  mkdir -p build/fuzz/work/$$n; \
	  echo "  FUZZ    $$n for $(FUZZ_TIME)s"; \
	  build/fuzz/$$n -max_total_time=$(FUZZ_TIME) \
	      -artifact_prefix=build/fuzz/findings/$$n- \
	      build/fuzz/work/$$n tests/fuzz/corpus/$$n || exit 1; \
	done

clean:
	rm -rf build bin

-include $(shell find build -name '*.d' 2>/dev/null)
