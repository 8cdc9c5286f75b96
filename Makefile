# cow-policy: Debian's linux-source-6.1 with a selectable anonymous
# copy-on-write reuse policy (/proc/sys/vm/cow_policy), built and tested in
# QEMU. `make help` lists the targets. Long logic lives in scripts/*.sh.

# ---- where things are (override on the command line) -------------------
BUILD   ?= $(CURDIR)/build
RESULTS ?= $(CURDIR)/results
KTAR    ?= /usr/src/linux-source-6.1.tar.xz
KSRC    ?= $(BUILD)/linux-source-6.1
PATCHES ?= $(CURDIR)/patches

# The Debian package version the patch series was last tested on.
TESTED_DEBIAN_VERSION = 6.1.192-3

# ---- what to build and run ----------------------------------------------
VARIANT ?= cow
PROFILE ?= base
POLICY  ?=
VARIANTS = cow nocow debug stock
TEST_VARIANTS ?= cow
# pin, thp, pmem and swap: see qemu-profiles/ and driver/cowpin/.
TEST_PROFILES ?= base pin thp pmem swap
# Also: the debug kernel (DEBUG_VM, lockdep) on base and pin, the kernel
# without CONFIG_COW_POLICY on base, and the cow_policy= boot parameter.
# flip: the flip stress (tests/guest/flipstress.c, 25 s) on the normal and
# the debug kernel.
TEST_EXTRA    ?= debug:base debug:pin nocow:base cow:bootparam cow:flip debug:flip
# upstream: upstream's cow.c and gup_longterm.c (linux-source-6.12, built
# by scripts/build/upstream.sh) under every policy against tests/expect/upstream.tsv.
# vmtests: 6.1's own tools/testing/selftests/vm programs (scripts/build/vmtests.sh)
# under every policy and on the unpatched 6.1 kernel (variant stock), against
# tests/expect/vm-selftests.tsv; exclusive must match unpatched 6.1.
TEST_UPSTREAM ?= cow:upstream cow:vmtests stock:vmtests
TEST_MATRIX   ?= $(foreach v,$(TEST_VARIANTS),$(foreach p,$(TEST_PROFILES),$(v):$(p))) $(TEST_EXTRA) $(TEST_UPSTREAM)
# Seconds per QEMU run; the runner's per-test timeout is TEST_TIMEOUT.
TIMEOUT      ?= 600
TEST_TIMEOUT ?= 120
# panic|hang|warn: add a deliberately failing guest step (harness self-test).
HARNESS_SELFTEST ?=
JOBS ?= 3

# ---- packages (make deps) -------------------------------------------------
PACKAGES = linux-source-6.1 qemu-system-x86 gcc make bison flex bc \
	libelf-dev libssl-dev kmod dracut-core busybox-static e2fsprogs ccache \
	strace cpio gnuplot-nox xz-utils rsync util-linux coreutils \
	shellcheck perl python3-ply python3-scipy \
	linux-source-6.12 liburing-dev libnuma-dev \
	systemtap
EXTRA_PACKAGES ?=
# The benchmark statistics use scipy.stats from Debian's python3-scipy, which
# is installed for Debian's interpreter (a python3 earlier in PATH may lack it).
SCIPY_PYTHON ?= /usr/bin/python3
export SCIPY_PYTHON

# checkpatch --strict runs on every patch (make check). Ignored, because
# they are false positives here: UNKNOWN_COMMIT_ID (the Debian tree has no
# upstream history, so every upstream commit id is "unknown") and
# EMBEDDED_FILENAME (`source "mm/Kconfig.cow"` in mm/Kconfig matches the
# name mm/Kconfig).
CHECKPATCH_IGNORE ?= UNKNOWN_COMMIT_ID,EMBEDDED_FILENAME

# ---- kernel variants: config fragments, source tree, object dir -----------
FRAGMENTS_stock  = configs/lean.config
FRAGMENTS_cow   = configs/lean.config configs/cow.config
FRAGMENTS_nocow = configs/lean.config configs/nocow.config
FRAGMENTS_debug = configs/lean.config configs/cow.config configs/debug.config
BASE_TREE = $(BUILD)/linux-stock
TREE = $(if $(filter stock,$(VARIANT)),$(BASE_TREE),$(KSRC))
OBJ  = $(BUILD)/obj-$(VARIANT)

export BUILD RESULTS KSRC PATCHES VARIANT PROFILE POLICY TIMEOUT TEST_TIMEOUT \
	HARNESS_SELFTEST TEST_VARIANTS TEST_MATRIX JOBS CHECKPATCH_IGNORE

.PHONY: help deps tree export kernel driver guest initramfs run test check check-series check-series-quick test-mutants shell soak \
	bench bench-report bench-compare bench-repeatability test-harness-failures test-bad-input check-args stap trace clean distclean

help:
	@echo 'cow-policy targets:'
	@echo '  make test        check, build everything, boot TEST_MATRIX ($(TEST_MATRIX)), summary'
	@echo '  make bench [QUICK=1]   A/B COW microbenchmarks: policies x (cow, unpatched stock) -> results/bench-*/'
	@echo '  make bench-report RUN=<dir>       re-render report.md, plots, summary from raw data'
	@echo '  make bench-compare A=<dir> B=<dir>   every cell of run B against run A'
	@echo '  make bench-repeatability   two deterministic runs, fault benchmarks must agree within 0.1%'
	@echo '  make check       fast host-side checks, no QEMU'
	@echo '  make check-series  build every prefix of the series, COW_POLICY=y and =n'
	@echo '  make check-series-quick  the same, compiling only the objects the series touches'
	@echo '  make test-mutants [MUTANTS="a b"]   broken series (tests/mutants/) must fail exactly their expected cells'
	@echo '  make shell PROFILE=base POLICY=refcount [VARIANT=cow]   interactive guest'
	@echo '  make deps        apt-get install what is missing'
	@echo '  make tree        unpack the kernel, apply patches/series (branch cow-policy)'
	@echo '  make export      tree commits base..cow-policy -> patches/ + series'
	@echo '  make kernel [VARIANT=cow|nocow|debug|stock]'
	@echo '  make driver [VARIANT=cow]   out-of-tree cowpin.ko -> $(BUILD)/driver/<variant>'
	@echo '  make guest       static guest programs, upstream cow.c + gup_longterm.c, 6.1 vm selftests -> $(BUILD)/guest/bin'
	@echo '  make initramfs [VARIANT= PROFILE=]'
	@echo '  make run [VARIANT= PROFILE= POLICY=]   one QEMU run, results/<run-id>/'
	@echo '  make test-harness-failures   show that panic, hang and WARNING fail a run'
	@echo '  make test-bad-input   harness errors: bad profile/policy/variant, package, patch, no boot'
	@echo '  make stap [VARIANT= SCRIPT=]   compile benchmarks/stap/*.stp for the guest kernel'
	@echo '  make trace PROFILE= POLICY= SCRIPT= [WORKLOAD=]   a stap script live around a guest workload'
	@echo '  make soak DURATION=<min> [VARIANT=debug]   the flip stress (flipstress) for that long'
	@echo '  make clean       remove results, guest programs, initramfs images'
	@echo '  make distclean   remove $(BUILD) (kernel trees and objects too)'

deps:
	@scripts/build/deps.sh $(PACKAGES) $(EXTRA_PACKAGES)

tree:
	@scripts/build/tree.sh $(KTAR) $(KSRC) $(PATCHES) $(TESTED_DEBIAN_VERSION)

export:
	@scripts/build/export.sh $(KSRC) $(PATCHES)

# SKIP_TREE=1: the caller has just run make tree (make test does).
kernel: $(if $(SKIP_TREE),,tree)
	@$(if $(FRAGMENTS_$(VARIANT)),:,echo "unknown VARIANT '$(VARIANT)'; valid: $(VARIANTS)" >&2; exit 1)
	@if [ "$(VARIANT)" = stock ] && [ ! -d $(BASE_TREE) ]; then \
		git -C $(KSRC) worktree add -q --detach $(BASE_TREE) base; fi
	@scripts/build/kconfig.sh $(VARIANT) $(TREE) $(OBJ) configs/pending.txt $(FRAGMENTS_$(VARIANT))
	@scripts/build/kernel.sh $(VARIANT) $(TREE) $(OBJ)

# The cowpin pinning driver (driver/cowpin/), built against OBJ with M=.
driver:
	@$(if $(FRAGMENTS_$(VARIANT)),:,echo "unknown VARIANT '$(VARIANT)'; valid: $(VARIANTS)" >&2; exit 1)
	@scripts/build/driver.sh $(VARIANT) $(TREE) $(OBJ)

guest:
	@scripts/build/guest.sh
	@scripts/build/upstream.sh $(KSRC)
	@scripts/build/vmtests.sh $(KSRC)

initramfs:
	@scripts/build/initramfs.sh $(VARIANT) $(PROFILE) $(OBJ)

# POLICY= (run, shell): one of VALID_POLICIES, or a space-separated list of them.
VALID_POLICIES = exclusive refcount mapcount
check_policy = $(if $(filter-out $(VALID_POLICIES),$(POLICY)),@echo "unknown POLICY '$(POLICY)'; valid: $(VALID_POLICIES)" >&2; exit 1)
check_variant = $(if $(FRAGMENTS_$(VARIANT)),,@echo "unknown VARIANT '$(VARIANT)'; valid: $(VARIANTS)" >&2; exit 1)

# check-args: fail before any work on a bad POLICY= or VARIANT=.
check-args:
	$(check_policy)
	$(check_variant)

run: check-args
	@scripts/boot/run-qemu.sh $(VARIANT) $(PROFILE) $(OBJ)

test:
	@MAKE="$(MAKE)" scripts/flow/test.sh

check:
	@scripts/check/check.sh

# Bisectability: build every prefix of the series with CONFIG_COW_POLICY=y
# and =n (slow: about 40 minutes on 2 cores).
check-series: tree
	@sh scripts/check/check-series.sh $(KSRC) $(PATCHES) $(BUILD)

# The same prefixes, compiling only the objects the series touches (minutes).
check-series-quick: tree
	@QUICK=1 sh scripts/check/check-series.sh $(KSRC) $(PATCHES) $(BUILD)

# The mutation check: tests/mutants/*.patch (MUTANTS="a b" for some), each
# built on the series and booted; each must fail exactly its expected cells.
MUTANTS ?=
test-mutants: tree
	@sh scripts/check/mutants.sh $(KSRC) $(MUTANTS)

shell: check-args guest initramfs
	@scripts/boot/run-qemu.sh --shell $(VARIANT) $(PROFILE) $(OBJ)

# make bench: see scripts/flow/bench.sh for the BENCH_* knobs (rounds, sizes, modes).
QUICK ?=
bench:
	@MAKE="$(MAKE)" QUICK="$(QUICK)" scripts/flow/bench.sh

bench_dir = $(if $(wildcard $(1)/raw.json $(1)/meta.env),$(1),$(RESULTS)/$(1))
bench-report:
	@test -n "$(RUN)" || { echo 'usage: make bench-report RUN=<results/bench-... dir>' >&2; exit 1; }
	@$(SCIPY_PYTHON) scripts/report/benchstat.py report $(call bench_dir,$(RUN)) && cat $(call bench_dir,$(RUN))/summary.txt

bench-compare:
	@test -n "$(A)" && test -n "$(B)" || { echo 'usage: make bench-compare A=<run dir> B=<run dir>' >&2; exit 1; }
	@$(SCIPY_PYTHON) scripts/report/benchstat.py compare $(call bench_dir,$(A)) $(call bench_dir,$(B))

bench-repeatability:
	@MAKE="$(MAKE)" scripts/flow/bench-repeat.sh

test-harness-failures:
	@MAKE="$(MAKE)" scripts/check/harness-failures.sh

# Host-side bad-input tests of the harness (seconds): unknown profile,
# policy, variant, a missing package, corrupted and non-applying patches,
# a guest that never boots. Run by make test after make check.
test-bad-input:
	@MAKE="$(MAKE)" scripts/check/test-bad-input.sh

# systemtap (benchmarks/stap/): compile SCRIPT (default: all) on the host
# for VARIANT into $(BUILD)/stap/<variant>/; the initramfs of that variant
# then carries the modules, staprun and stapio.
SCRIPT ?=
stap: check-args
	@scripts/build/stap.sh $(VARIANT) $(OBJ) $(SCRIPT)

# make trace PROFILE=<p> POLICY=<policy> SCRIPT=<name> [WORKLOAD="cmd args"]
trace: check-args
	@MAKE="$(MAKE)" SCRIPT="$(SCRIPT)" WORKLOAD="$(WORKLOAD)" scripts/flow/trace.sh

# The flip stress for DURATION minutes (default 30) on VARIANT (default
# debug) in the flip profile: make soak DURATION=30
DURATION ?= 30
soak:
	@MAKE="$(MAKE)" DURATION="$(DURATION)" VARIANT="$(if $(filter command line,$(origin VARIANT)),$(VARIANT),debug)" scripts/flow/soak.sh

clean:
	rm -rf $(RESULTS) $(BUILD)/guest $(BUILD)/initramfs

distclean:
	rm -rf $(BUILD) $(RESULTS)
