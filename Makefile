# SPDX-License-Identifier: GPL-3.0-or-later
# counterpoint: one plain Makefile.  `make deps` installs, `make` builds,
# `make check` runs the quick tests, `make test` every test; both end with
# "N passed, N failed, N skipped".  Quiet unless V=1.

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
# The library's objects are compiled once, position-independent, for the
# static and the shared library alike; without semantic interposition
# calls inside the library stay direct, as in an executable.
PICFLAGS = -fPIC -fno-semantic-interposition
CFLAGS  ?= -O2 -g
ASANFLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=all
# LAPACK and BLAS: the reference implementations.  The matrices here are
# small (a counter set's covariance, 26 x 26 on the Haswell family), where
# OpenBLAS's threads cost more than they save, and OpenBLAS retries a
# failed mmap forever, so a process under an address-space limit (ulimit
# -v) hung before main.  Debian and Ubuntu switch liblapack.so.3 and
# libblas.so.3 among the installed implementations (update-alternatives)
# and keep the reference ones in lapack/ and blas/ beside them: linked
# and run from there, whatever the switch says.
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
REFBLAS_DIRS := $(wildcard $(MULTIARCH:%=/usr/lib/%/lapack) $(MULTIARCH:%=/usr/lib/%/blas))
BLAS_LIBS = $(REFBLAS_DIRS:%=-L%) $(REFBLAS_DIRS:%=-Wl,-rpath,%) -llapacke \
            -Wl,--push-state,--no-as-needed -llapack -lblas -Wl,--pop-state
# libpfm4 is not linked: hw/event.c opens it on first use (-ldl).
# SO_LIBS: what the shared library links.
SO_LIBS  = -lglpk -lqhull_r -lgmp $(BLAS_LIBS) -lgsl -lgslcblas \
           -ldl -lpthread -lm
# The programs (the command, the tests, the bench) take the same
# libraries from their static archives (the reference LAPACK and BLAS
# from the folders above), all but the C library's: each shared library
# is mapped, relocated and faulted in at every start, and these were
# two thirds of a short run's time.  GLPK's archive needs zlib and ltdl,
# LAPACK's gfortran (and quadmath where it exists).
QUADMATH := $(if $(wildcard $(shell $(CC) -print-file-name=libquadmath.a)),-lquadmath)
LIBS     = $(REFBLAS_DIRS:%=-L%) -Wl,-Bstatic -lglpk -lqhullstatic_r -lgmp \
           -llapacke -llapack -lblas -lgsl -lgslcblas -lz -lltdl \
           -lgfortran $(QUADMATH) -Wl,-Bdynamic -ldl -lpthread -lm

# Debian packages: every one the project needs, in one place.  normaliz
# and time are for `make bench` only: the peer the cone is timed against
# (bench/cone_normaliz.py), and /usr/bin/time for a command's peak memory
# (bench/); nothing else runs them.
DEPS_PKGS = build-essential flex bison libglpk-dev libqhull-dev libgmp-dev \
            gfortran libltdl-dev zlib1g-dev \
            liblapacke-dev liblapack-dev libblas-dev libgsl-dev libpfm4-dev graphviz \
            clang libclang-rt-14-dev linux-perf valgrind binutils python3 \
            xz-utils chromium pkgconf groff-base python3-numpy \
            python3-venv python3-pip python3-setuptools python3-wheel \
            python3-pandas python3-jsonschema libopenmpi-dev openmpi-bin normaliz \
            time

# ---- sources ----
MODULES  = common dsl geometry stats solver pipeline explore report hw hw/sim capi
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

# The shared library: soname libcounterpoint.so.$(SOMAJOR), from the same
# objects as the static one; the version is cp_version()'s.
VERSION  := $(shell sed -n 's/^[[:space:]]*return "\([0-9][0-9.]*\)";/\1/p' common/cp.c)
SOMAJOR  = 0
SONAME   = libcounterpoint.so.$(SOMAJOR)
SOLIB    = build/libcounterpoint.so.$(VERSION)
# The installed headers: each module's public header(s), no internal ones.
PUBLIC_HDR = common/cp.h dsl/udd.h hw/hec.h hw/perfstat.h hw/gem5.h hw/sim/mmu.h \
             geometry/cone.h stats/region.h solver/feas.h pipeline/pipeline.h \
             explore/explore.h report/report.h capi/counterpoint.h
# pkg-config: the libraries that ship a .pc file, and the others.
PC_REQUIRES = gmp gsl qhull_r
PC_LIBS     = -lglpk $(BLAS_LIBS) -ldl -lpthread -lm

# The MPI build of the same cli sources (docs/manual/mpi.md): make mpi, made and
# tested by make test when mpicc exists (tests/cli/mpi.sh skips otherwise).
MPICC   ?= mpicc
HAVE_MPICC := $(shell command -v $(MPICC) 2>/dev/null)
MPI_BIN  = bin/counterpoint-mpi
MPI_CLI_OBJ = $(CLI_SRC:%.c=build/mpi/obj/%.o)

LIB      = build/libcounterpoint.a
ALIB     = build/asan/libcounterpoint.a
BIN      = bin/counterpoint
ABIN     = build/asan/counterpoint

.SECONDARY:
.PHONY: all deps check test unit asan fuzz fuzz-build bench check-symbols check-layers clean \
        shared man install uninstall mpi python FORCE
all: $(BIN) $(LIB) shared man

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

# ---- the build's version: the commit `counterpoint --version` names ----
# git describe of the checkout (CP_BUILD_GIT, "" outside git or at the
# release's own tag vX.Y.Z), rewritten only when it changes, so that a
# new commit recompiles cli/main.c alone.
BUILD_GIT := $(shell git describe --tags --always --dirty 2>/dev/null | grep -vx 'v$(VERSION)')
build/gen/build-version.h: FORCE
	@mkdir -p $(@D)
	$(Q)printf '#define CP_BUILD_GIT "%s"\n' '$(BUILD_GIT)' > $@.tmp && \
	    (cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@)
build/obj/cli/main.o build/asan/obj/cli/main.o build/mpi/obj/cli/main.o: build/gen/build-version.h
FORCE:

# ---- plain build ----
build/obj/gen/%.o: build/gen/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(BASEFLAGS) $(CFLAGS) $(PICFLAGS) $(GENWARN) -c -o $@ $<
build/obj/%.o: %.c | $(GEN_HDR)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(BASEFLAGS) $(CFLAGS) $(PICFLAGS) $(WARN) $(if $(filter $(NUMERIC),$<),$(NUMWARN)) -c -o $@ $<
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

# ---- the MPI command: cli/ again with mpicc and CP_MPI, the same library ----
build/mpi/obj/%.o: %.c | $(GEN_HDR)
	@mkdir -p $(@D)
	@echo "  MPICC   $<"
	$(Q)$(MPICC) $(BASEFLAGS) -DCP_MPI $(CFLAGS) $(WARN) -c -o $@ $<
$(MPI_BIN): $(MPI_CLI_OBJ) $(LIB)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(MPICC) $(CFLAGS) -o $@ $(MPI_CLI_OBJ) $(LIB) $(LIBS)
mpi: $(MPI_BIN)

# ---- shared library ----
# The exported interface is exactly what the public headers declare: the
# version script lists the objects' global symbols that the headers name
# (everything else, module-internal cross-file functions included, is
# local).  tests/check-symbols.sh checks the result with nm -D.
build/libcounterpoint.map: $(LIB_OBJ) $(PUBLIC_HDR) build-aux/exports.sh
	$(Q)CC="$(CC)" sh build-aux/exports.sh COUNTERPOINT_$(SOMAJOR) "$(PUBLIC_HDR)" $(LIB_OBJ) > $@.tmp && mv $@.tmp $@
$(SOLIB): $(LIB_OBJ) build/libcounterpoint.map
	@echo "  LINK    $@"
	$(Q)$(CC) $(CFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=build/libcounterpoint.map \
	    -Wl,--no-undefined -o $@ $(LIB_OBJ) $(SO_LIBS)
build/$(SONAME) build/libcounterpoint.so: $(SOLIB)
	$(Q)ln -sf $(notdir $(SOLIB)) $@
shared: $(SOLIB) build/$(SONAME) build/libcounterpoint.so

# ---- manual pages, made from the --help texts (docs/man/mkman.sh) ----
build/man/counterpoint.1: $(BIN) docs/man/mkman.sh
	@echo "  MAN     build/man"
	$(Q)rm -rf build/man && sh docs/man/mkman.sh $(BIN) build/man
man: build/man/counterpoint.1

# ---- the Python package (python/, docs/manual/python.md) ----
# make python: its wheel in build/python, built offline from a copy of
# python/ (the build leaves nothing in the tree) by the first of python3,
# /usr/bin/python3 that has setuptools and wheel, or $(PYTHON).
PYTHON ?= $(shell for p in python3 /usr/bin/python3; do $$p -c 'import setuptools, wheel' \
            2>/dev/null && { echo $$p; break; }; done)
PY_SRC   = python/pyproject.toml python/counterpoint/__init__.py python/counterpoint/py.typed
WHEEL    = build/python/counterpoint-$(VERSION)-py3-none-any.whl
$(WHEEL): $(PY_SRC)
	@echo "  WHEEL   $@"
	$(Q)test -n "$(PYTHON)" || { echo "make python: no python3 with setuptools and wheel"; exit 1; }
	$(Q)rm -rf build/python && mkdir -p build/python/src && \
	    cp -r python/pyproject.toml python/counterpoint build/python/src/ && \
	    cd build/python/src && $(PYTHON) -m pip wheel -q --no-index --no-build-isolation \
	    --no-deps -w .. . && cd .. && rm -rf src
python: $(WHEEL)

# ---- install: make install PREFIX=/usr/local DESTDIR= ----
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# the bundled models, found by name beside the installed command
# (cli/model.c: PREFIX/bin/../share/counterpoint/models)
MODELDIR   = $(PREFIX)/share/counterpoint/models
MODEL_SRC  = $(wildcard models/*/*.udd)
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# The Python package goes under LIBDIR, in the site folder of
# $(PYTHON)'s version (dist-packages for Debian's python3, which reads
# PREFIX/lib/python3.X/dist-packages), beside the library it loads.
PYTHONDIR ?= $(shell $(or $(PYTHON),python3) -c 'import sys; print("$(LIBDIR)/python%d.%d/%s" % \
              (sys.version_info[:2] + ("dist-packages" if any(p.endswith("dist-packages") \
              for p in sys.path) else "site-packages",)))' 2>/dev/null)
# A folder under the prefix is written as ${prefix}/..., so that
# pkg-config --define-prefix can move the tree.
pc_rel = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
build/counterpoint.pc: Makefile common/cp.c
	$(Q)printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(call pc_rel,$(LIBDIR))' \
	    'includedir=$(call pc_rel,$(INCLUDEDIR))' '' \
	    'Name: counterpoint' \
	    'Description: test processor models against hardware event counters' \
	    'Version: $(VERSION)' \
	    'Requires.private: $(PC_REQUIRES)' \
	    'Cflags: -I$${includedir}/counterpoint' \
	    'Libs: -L$${libdir} -lcounterpoint' \
	    'Libs.private: $(PC_LIBS)' > $@
# The prefix is written into counterpoint.pc: rebuild it every time.
.PHONY: build/counterpoint.pc
install: all build/counterpoint.pc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/counterpoint
	install -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/libcounterpoint.a
	install -m 755 $(SOLIB) $(DESTDIR)$(LIBDIR)/$(notdir $(SOLIB))
	ln -sf $(notdir $(SOLIB)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libcounterpoint.so
	for h in $(PUBLIC_HDR); do \
	    install -d $(DESTDIR)$(INCLUDEDIR)/counterpoint/$${h%/*} && \
	    install -m 644 $$h $(DESTDIR)$(INCLUDEDIR)/counterpoint/$$h || exit 1; \
	done
	install -m 644 build/counterpoint.pc $(DESTDIR)$(PKGCONFIGDIR)/counterpoint.pc
	install -m 644 build/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 completion/counterpoint $(DESTDIR)$(BASHCOMPDIR)/counterpoint
	for m in $(MODEL_SRC:models/%=%); do \
	    install -d $(DESTDIR)$(MODELDIR)/$${m%/*} && \
	    install -m 644 models/$$m $(DESTDIR)$(MODELDIR)/$$m || exit 1; \
	done
	if [ -n "$(PYTHONDIR)" ]; then \
	    install -d $(DESTDIR)$(PYTHONDIR)/counterpoint && \
	    install -m 644 python/counterpoint/__init__.py python/counterpoint/py.typed \
	        $(DESTDIR)$(PYTHONDIR)/counterpoint/; \
	else echo "install: no python3: the Python package is not installed"; fi
# Removes what install put there (counterpoint*.1: the man pages are
# counterpoint's namespace), then the header folders left empty.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/counterpoint $(DESTDIR)$(LIBDIR)/libcounterpoint.a \
	    $(DESTDIR)$(LIBDIR)/libcounterpoint.so $(DESTDIR)$(LIBDIR)/$(SONAME) \
	    $(DESTDIR)$(LIBDIR)/libcounterpoint.so.$(SOMAJOR).* \
	    $(DESTDIR)$(PKGCONFIGDIR)/counterpoint.pc \
	    $(DESTDIR)$(MANDIR)/man1/counterpoint.1 $(DESTDIR)$(MANDIR)/man1/counterpoint-*.1 \
	    $(DESTDIR)$(BASHCOMPDIR)/counterpoint
	for h in $(PUBLIC_HDR); do rm -f $(DESTDIR)$(INCLUDEDIR)/counterpoint/$$h; done
	for m in $(MODEL_SRC:models/%=%); do rm -f $(DESTDIR)$(MODELDIR)/$$m; done
	-find $(DESTDIR)$(INCLUDEDIR)/counterpoint $(DESTDIR)$(PREFIX)/share/counterpoint \
	    -depth -type d -empty -delete 2>/dev/null
	if [ -n "$(PYTHONDIR)" ]; then \
	    rm -rf $(DESTDIR)$(PYTHONDIR)/counterpoint/__init__.py \
	        $(DESTDIR)$(PYTHONDIR)/counterpoint/py.typed $(DESTDIR)$(PYTHONDIR)/counterpoint/__pycache__; \
	    rmdir $(DESTDIR)$(PYTHONDIR)/counterpoint 2>/dev/null || true; fi

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
# make check: the quick tier, to run while working (tests/run.sh --quick);
# make test: everything, what CI runs: the sanitizer build and the fuzz
# targets (built with clang, each run on its seed corpus) too.  Both run
# JOBS tests at a time (default: the processors); tests/run.sh PATTERN
# runs a subset.
JOBS    ?= $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
unit: $(UNIT_BIN)
asan: $(AUNIT_BIN) $(ABIN)
check: all unit check-layers
	$(Q)sh tests/run.sh --quick -j $(JOBS)
test: all unit asan fuzz-build check-symbols check-layers $(if $(HAVE_MPICC),mpi)
	$(Q)sh tests/run.sh -j $(JOBS)

# Modules include only the headers of modules below them (docs/internals/architecture.md).
check-layers:
	$(Q)sh tests/check-layers.sh .

# Every exported symbol carries its module's prefix.
check-symbols: $(LIB_OBJ) $(CLI_OBJ) shared
	$(Q)sh tests/check-symbols.sh build/obj build/libcounterpoint.so "$(PUBLIC_HDR)"

# The bench programs, and one line for each speed goal: check on many
# observations and on a long one, start-up, and the cone against Normaliz
# on small cases (bench/goals.py, a few minutes; the cone's big cases,
# minutes each, are python3 bench/cone_normaliz.py and docs/method/cone.md).
bench: $(BENCH_BIN) bin/counterpoint
	$(Q)python3 bench/goals.py

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
