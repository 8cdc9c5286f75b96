# cow-policy: Debian's linux-source-6.1 with a selectable anonymous
# copy-on-write reuse policy (/proc/sys/vm/cow_policy), built and tested in
# QEMU. `make help` lists the targets. Long logic lives in scripts/*.sh.

# ---- the kernel line ----------------------------------------------------
# KERNEL=6.1|6.12 selects the line: Debian's linux-source-<line> tarball,
# its tree, the series patches/<line>/, the line's config fragments and its
# test matrix. One set of scripts serves every line. make test runs every
# line of TEST_KERNELS (scripts/flow/test.sh): both, or the one KERNEL
# names on the command line.
KERNELS = 6.1 6.12
KERNEL ?= 6.1
ifeq ($(filter $(KERNEL),$(KERNELS)),)
$(error unknown KERNEL '$(KERNEL)'; valid: $(KERNELS))
endif
TEST_KERNELS ?= $(if $(filter command line,$(origin KERNEL)),$(KERNEL),$(KERNELS))

# ---- where things are (override on the command line) -------------------
# BUILD is the build directory of the line: the root for 6.1 (as before the
# axis, so that its trees, objects and ccache hits stay where they are),
# <root>/<line> for the others (build/6.12/: its own tree, stock tree,
# stamps, objects, drivers, guest programs and images). BUILD_ROOT is the
# root; a BUILD given on the command line is the root too, so that make
# BUILD=/x KERNEL=6.12 builds in /x/6.12.
ifeq ($(origin BUILD),command line)
BUILD_ROOT := $(BUILD)
else ifeq ($(origin BUILD_ROOT),undefined)
BUILD_ROOT := $(or $(BUILD),$(CURDIR)/build)
endif
line_build = $(BUILD_ROOT)$(if $(filter-out 6.1,$(1)),/$(1))
override BUILD := $(call line_build,$(KERNEL))
RESULTS ?= $(CURDIR)/results
KTAR    ?= /usr/src/linux-source-$(KERNEL).tar.xz
KSRC    ?= $(BUILD)/linux-source-$(KERNEL)
# Every line's tree, "6.1=DIR 6.12=DIR": make check runs each line's
# checkpatch.pl on its series.
LINE_TREES = $(foreach l,$(KERNELS),$(l)=$(if $(filter $(l),$(KERNEL)),$(KSRC),$(call line_build,$(l))/linux-source-$(l)))
PATCHES ?= $(CURDIR)/patches/$(KERNEL)

# The Debian package version the line's series was last tested on.
TESTED_DEBIAN_VERSION_6.1  = 6.1.192-3
TESTED_DEBIAN_VERSION_6.12 = 6.12.118-1~deb12u1
TESTED_DEBIAN_VERSION = $(TESTED_DEBIAN_VERSION_$(KERNEL))

# ---- what to build and run ----------------------------------------------
VARIANT ?= cow
PROFILE ?= base
POLICY  ?=
# nommid (the 6.12 line): the cow kernel without its line's COW fragments,
# i.e. without CONFIG_COW_POLICY_MM_ID: what carrying the MM owner
# tracking costs (make bench BENCH_VARIANTS), and a kernel where exclusive
# must equal unpatched 6.12 and largefolio is refused (make test-stock).
VARIANTS = cow nocow debug stock kasan nommid
# make test's kernel per line: its debug kernel (DEBUG_VM on the series'
# decisions and, on 6.12, on the MM owner tracking's VM_WARN_ON checks;
# 6.1's with lockdep, configs/debug.config, 6.12's without,
# configs/6.12/debug.config), one build per line: the cow kernel differs
# from it only by those checks, and a second build per line does not fit
# the time budget (6.1's cow build was 1016 of make test's 4527 cold
# seconds, run 20261207-113201, its runs repeating the debug kernel's).
# make bench, make bench-insn and make test-mutants build the cow kernel.
TEST_VARIANTS_6.1  = debug
TEST_VARIANTS_6.12 = debug
TEST_VARIANTS ?= $(TEST_VARIANTS_$(KERNEL))
# The matrix is per kernel line: TEST_PROFILES, TEST_EXTRA and TEST_UPSTREAM
# default to the line's own (_6.1, _6.12 below).
# pin, thp, pmem and swap: see qemu-profiles/ and driver/cowpin/.
TEST_PROFILES_6.1 = base pin thp pmem swap
# Also: the cow_policy= boot parameter, and flip: the flip stress
# (tests/guest/flipstress.c, 25 s) with the systemtap check of
# cow_decisions. The kernel without CONFIG_COW_POLICY boots
# in make test-nocow, not here (its build is 7 of make test's cold minutes,
# which the 6.12 line needs; make check-series builds every prefix of the
# series with CONFIG_COW_POLICY=n).
TEST_EXTRA_6.1 = debug:bootparam debug:flip
# upstream: upstream's cow.c and gup_longterm.c (linux-source-6.12, built
# by scripts/build/upstream.sh) under every policy against tests/expect/upstream.tsv,
# and on the unpatched 6.1 kernel: exclusive must match it case by case, so
# that a failure or skip the expectations call 6.1's own is 6.1's.
# vmtests: 6.1's own tools/testing/selftests/vm programs (scripts/build/vmtests.sh)
# under every policy and on the unpatched 6.1 kernel (variant stock), against
# tests/expect/vm-selftests.tsv; exclusive must match unpatched 6.1.
# The unpatched kernels (variant stock) boot only with TEST_STOCK=yes (make
# test-stock): 6.1's build alone was 528 of make test's 4833 cold seconds
# (run 20261206-203024), 6.12's 971 of 4997 (run 20261207-043037), spent
# where no policy differs. make test judges exclusive against the
# expectation rows that the unpatched kernels set; make test-stock also
# compares it with them case by case.
TEST_STOCK ?=
STOCK_ON = $(filter yes,$(TEST_STOCK))
TEST_UPSTREAM_6.1 = debug:upstream debug:vmtests $(if $(STOCK_ON),stock:upstream stock:vmtests)
# The 6.12 line, on its debug kernel (TEST_VARIANTS_6.12): the scenario
# table on base, THP (PMD and PTE-mapped) and mTHP (16 and 64 KiB, a
# pinned subpage, swap-in from zram: profile mthp), the flip stress with
# mTHPs (debug:flip), and 6.12's own cow.c and gup_longterm.c natively
# under every policy (largefolio, the fourth, included), and with
# TEST_STOCK=yes on unpatched 6.12 (exclusive must match it, on the
# debug kernel and on nommid, built without the MM owner tracking, whose
# base run checks that largefolio is refused). The pin,
# swap and pmem profiles, lockdep and 6.12's own mm selftests are the 6.1
# line's only, for time.
TEST_PROFILES_6.12 = base thp mthp
TEST_EXTRA_6.12    = debug:flip
TEST_UPSTREAM_6.12 = debug:upstream $(if $(STOCK_ON),stock:upstream nommid:base nommid:upstream)
TEST_PROFILES ?= $(TEST_PROFILES_$(KERNEL))
TEST_EXTRA    ?= $(TEST_EXTRA_$(KERNEL))
TEST_UPSTREAM ?= $(TEST_UPSTREAM_$(KERNEL))
TEST_MATRIX   ?= $(strip $(foreach v,$(TEST_VARIANTS),$(foreach p,$(TEST_PROFILES),$(v):$(p))) $(TEST_EXTRA) $(TEST_UPSTREAM))
# Seconds per QEMU run; the runner's per-test timeout is TEST_TIMEOUT.
TIMEOUT      ?= 600
TEST_TIMEOUT ?= 120
# panic|hang|warn: add a deliberately failing guest step (harness self-test).
HARNESS_SELFTEST ?=
# make test runs each line's graph with make -j$(JOBS): a line's kernel
# builds beside its own guest runs too, not only beside the other line's.
# Builds take turns under scripts/build/kernel.sh's lock and guests under
# make test's guest lock, so at most one of each runs whatever N is; a job
# waiting for a lock holds one of the N slots, hence 4, not 2. JOBS=1: each
# line's graph in order.
JOBS ?= 4

# ---- packages (make deps) -------------------------------------------------
PACKAGES = linux-source-6.1 qemu-system-x86 gcc make bison flex bc \
	libelf-dev libssl-dev kmod dracut-core busybox-static e2fsprogs ccache \
	strace cpio gnuplot-nox xz-utils zstd rsync util-linux coreutils \
	shellcheck perl python3-ply python3-scipy \
	linux-source-6.12 liburing-dev libnuma-dev \
	systemtap parallel redis-tools stress-ng
EXTRA_PACKAGES ?=
# The benchmark statistics use scipy.stats from Debian's python3-scipy, which
# is installed for Debian's interpreter (a python3 earlier in PATH may lack it).
SCIPY_PYTHON ?= /usr/bin/python3
export SCIPY_PYTHON

# checkpatch --strict --no-tree runs on every patch (make check), as a
# reviewer runs it on a mailed series. Ignored, because they are false
# positives here: UNKNOWN_COMMIT_ID (no upstream history to look commit
# ids up in; their form is still checked, GIT_COMMIT_ID) and
# EMBEDDED_FILENAME (`source "mm/Kconfig.cow"` in mm/Kconfig matches the
# name mm/Kconfig).
CHECKPATCH_IGNORE ?= UNKNOWN_COMMIT_ID,EMBEDDED_FILENAME

# ---- kernel variants: config fragments, source tree, object dir -----------
# Every variant's configuration: KCONFIG_BASE (tinyconfig, or a config file
# whose modules scripts/build/kconfig.sh turns off), then FRAGMENTS_BASE,
# then the variant's own fragments. make bench-distro sets the first two to
# Debian's configuration and configs/distro.config.
# A line's own fragments (configs/<line>/) come after configs/lean.config,
# only where the line differs: configs/6.12/lean.config turns off
# SLUB_TINY, which 6.12's tinyconfig selects.
KCONFIG_BASE   ?= tinyconfig
FRAGMENTS_LINE_6.1  =
FRAGMENTS_LINE_6.12 = configs/6.12/lean.config
FRAGMENTS_BASE ?= $(strip configs/lean.config $(FRAGMENTS_LINE_$(KERNEL)))
FRAGMENTS_stock = $(FRAGMENTS_BASE)
# The 6.12 line's cow kernels also track the MM owners of large folios
# (CONFIG_COW_POLICY_MM_ID, patches/6.12/0013), for the largefolio policy.
FRAGMENTS_COW_6.1  =
FRAGMENTS_COW_6.12 = configs/6.12/mmid.config
FRAGMENTS_cow   = $(FRAGMENTS_BASE) configs/cow.config $(FRAGMENTS_COW_$(KERNEL))
FRAGMENTS_nocow = $(FRAGMENTS_BASE) configs/nocow.config
FRAGMENTS_nommid = $(FRAGMENTS_BASE) configs/cow.config
FRAGMENTS_DEBUG_6.1  = configs/debug.config
FRAGMENTS_DEBUG_6.12 = configs/6.12/debug.config
FRAGMENTS_debug = $(FRAGMENTS_cow) $(FRAGMENTS_DEBUG_$(KERNEL))
FRAGMENTS_kasan = $(FRAGMENTS_debug) configs/kasan.config
# A fresh object dir of nocow starts as a copy of cow's when cow's is built
# (scripts/build/kconfig.sh, SEED_OBJ): same tree, one option apart, so
# kbuild's per-option dependencies rebuild only what CONFIG_COW_POLICY
# reaches (767 of 1395 objects), where a cold ccache would compile all.
SEED_OBJ_nocow = $(BUILD)/obj-cow
STOCK_TREE ?= $(BUILD)/linux-stock
# Mutants (tests/mutants/<name>.patch, make test-mutants) are variants too:
# the series plus the mutant patch, in a worktree and object dir of their
# own named as the main build's are (ccache then hits its objects).
# Benchmark variants (benchmarks/variants/<name>.patch, make bench
# BENCH_COW=<name>) are built the same way: the series with one mechanism
# done another way, measured in the cow kernel's place.
# A mutant is a diff against one kernel line's series: its .conf's
# MUTANT_KERNEL (6.1 when absent); MUTANTS_ALL is the line's own.
mutant_kernel = $(or $(shell sed -n 's/^MUTANT_KERNEL=//p' tests/mutants/$(1).conf 2>/dev/null | tr -d "'\""),6.1)
MUTANTS_ALL := $(foreach m,$(patsubst tests/mutants/%.patch,%,$(wildcard tests/mutants/*.patch)),$(if $(filter $(KERNEL),$(call mutant_kernel,$(m))),$(m)))
ALTS_ALL    := $(patsubst benchmarks/variants/%.patch,%,$(wildcard benchmarks/variants/*.patch))
PATCHED_ALL  = $(MUTANTS_ALL) $(ALTS_ALL)
$(foreach m,$(MUTANTS_ALL),$(eval MUTANT_CONFIG_$(m) := $(shell sed -n 's/^MUTANT_CONFIG=//p' tests/mutants/$(m).conf 2>/dev/null | tr -d "'\"")))
$(foreach a,$(ALTS_ALL),$(eval MUTANT_CONFIG_$(a) := $(shell sed -n 's/^VARIANT_CONFIG=//p' benchmarks/variants/$(a).conf 2>/dev/null | tr -d "'\"")))
mutant_config = $(MUTANT_CONFIG_$(1))
$(foreach m,$(PATCHED_ALL),$(eval FRAGMENTS_$(m) = $(FRAGMENTS_$(call mutant_config,$(m)))))
patch_of = $(if $(filter $(ALTS_ALL),$(1)),benchmarks/variants,tests/mutants)/$(1).patch
pdir_of  = $(BUILD)/$(if $(filter $(ALTS_ALL),$(1)),variants,mutants)/$(1)
tree_id = $(if $(filter stock,$(1)),$(STAMPS)/stock-tree.id,$(if $(filter $(PATCHED_ALL),$(1)),$(call pdir_of,$(1))/tree.id,$(STAMPS)/tree.id))
tree_of = $(if $(filter stock,$(1)),$(STOCK_TREE),$(if $(filter $(PATCHED_ALL),$(1)),$(call pdir_of,$(1))/$(notdir $(KSRC)),$(KSRC)))
obj_of = $(if $(filter $(PATCHED_ALL),$(1)),$(call pdir_of,$(1))/obj-$(call mutant_config,$(1)),$(BUILD)/obj-$(1))
TREE = $(call tree_of,$(VARIANT))
OBJ  = $(call obj_of,$(VARIANT))
PROFILES := $(sort $(patsubst qemu-profiles/%.profile,%,$(wildcard qemu-profiles/*.profile)))
# Kernels whose images carry the cow_decisions systemtap module (make test's
# trace and flip checks, on debug; make run and make bench on cow; the debug
# kernel's DEBUG_ATOMIC_SLEEP needs scripts/build/stap.sh's runtime fix).
# Per line: Debian 12's systemtap 4.8 predates 6.12, so the 6.12 line's
# images carry no module yet (its flip profile runs flipmthp, without
# stap_check).
STAP_VARIANTS_6.1  = cow debug
STAP_VARIANTS_6.12 =
STAP_VARIANTS ?= $(STAP_VARIANTS_$(KERNEL))
# The lines whose images carry the cowpin driver (driver/cowpin/): built
# against the line's kernel, loaded by the pin feature.
DRIVER_LINES ?= 6.1 6.12
DRIVER_ID = $(if $(filter $(KERNEL),$(DRIVER_LINES)),$(BUILD)/driver/$(1)/driver.id)

# One results directory per make invocation: results/<RUN_ID>/.
ifeq ($(origin RUN_ID),undefined)
RUN_ID := $(shell date +%Y%m%d-%H%M%S)
endif
RDIR = $(RESULTS)/$(RUN_ID)

export KERNEL TEST_KERNELS LINE_TREES BUILD BUILD_ROOT RESULTS KSRC PATCHES VARIANT PROFILE POLICY TIMEOUT TEST_TIMEOUT KCONFIG_BASE FRAGMENTS_BASE \
	HARNESS_SELFTEST TEST_VARIANTS TEST_MATRIX CHECKPATCH_IGNORE RUN_ID

# ---- names given on the command line: checked once, before any work ------
# The policies of each line: 6.12's series adds largefolio.
POLICIES_6.1  = exclusive refcount mapcount
POLICIES_6.12 = exclusive refcount mapcount largefolio
VALID_POLICIES = $(POLICIES_$(KERNEL))
ifneq ($(filter run shell initramfs images kernel driver stap trace,$(MAKECMDGOALS)),)
ifeq ($(FRAGMENTS_$(VARIANT)),)
$(error unknown VARIANT '$(VARIANT)'; valid: $(VARIANTS) (the mutants: $(MUTANTS_ALL); benchmark variants: $(ALTS_ALL)))
endif
endif
ifneq ($(filter run shell initramfs images trace,$(MAKECMDGOALS)),)
ifeq ($(filter $(PROFILE),$(PROFILES)),)
$(error unknown profile '$(PROFILE)'; valid profiles: $(PROFILES))
endif
ifneq ($(filter-out $(VALID_POLICIES),$(POLICY)),)
$(error unknown POLICY '$(POLICY)'; valid: $(VALID_POLICIES))
endif
endif

.PHONY: help deps tree export kernel driver guest initramfs images run test test-graph check \
	check-series check-series-quick test-mutants test-nocow test-stock shell soak bench bench-report bench-compare \
	bench-repeatability bench-distro bench-insn test-harness-failures test-bad-input stap trace report rfc manifest fanout judge compare-runs critical-path stall-probe stall-report code-size print-build-targets clean distclean

# Targets of .PHONY that other recipes use, not people: make help and
# docs/harness.md list every other one (make check, scripts/check/targets.py).
INTERNAL_TARGETS = help test-graph print-build-targets

help:
	@echo 'cow-policy targets (KERNEL=6.1|6.12 selects the kernel line; default 6.1; this is $(KERNEL)):'
	@echo '  make test        check, build everything, boot each line of TEST_KERNELS ($(TEST_KERNELS)): its TEST_MATRIX ($(KERNEL): $(TEST_MATRIX)), summary'
	@echo '  make bench [QUICK=1]   A/B COW microbenchmarks: policies x (cow, unpatched stock) -> results/bench-*/'
	@echo '  make bench-report RUN=<dir>       re-render report.md, plots, summary from raw data'
	@echo '  make bench-compare A=<dir> B=<dir>   every cell of run B against run A'
	@echo '  make bench-distro [DISTRO_BOOTS=3]   make bench (det) on cow and stock built from Debian'"'"'s own 6.1 config'
	@echo '  make bench-insn [INSN_BENCH=fork-256 INSN_POLICY=exclusive]   instructions per function and op, cow against stock (QEMU plugin)'
	@echo '  make bench-repeatability   spread of det figures across seeds (K boots), and seed 1 twice must agree within 0.1%'
	@echo '  make check       fast host-side checks, no QEMU'
	@echo '  make check-series  build every prefix of the series, COW_POLICY=y and =n'
	@echo '  make check-series-quick  the same, compiling only the objects the series touches'
	@echo '  make test-mutants [MUTANTS="a b"]   broken series (tests/mutants/) must fail exactly their expected cells'
	@echo '  make test-nocow  the 6.1 kernel built with CONFIG_COW_POLICY=n on the base profile, judged (not in make test)'
	@echo '  make test-stock  make test with the unpatched kernels booted too, exclusive compared with them case by case (KERNEL= for one line)'
	@echo '  make shell PROFILE=base POLICY=refcount [VARIANT=cow]   interactive guest'
	@echo '  make deps        apt-get install what is missing'
	@echo '  make tree        unpack the kernel, apply patches/<KERNEL>/series (branch cow-policy) [KERNEL=6.1|6.12]'
	@echo '  make export      tree commits base..cow-policy -> patches/<KERNEL>/ + series'
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
	@echo '  make report RUN="<dirs>" | ADD="<dirs>"   RESULTS.md (Findings first), digests/, docs/plots/ from runs'
	@echo '  make rfc [FROM="Name <addr>"] [RFC_DIR=build/rfc]   the series as an RFC to linux-mm, cover letter from the results'
	@echo '  make images [MATRIX="v:p ..."]   every image the runs need'
	@echo '  make manifest | make fanout [PARALLEL=...]   the runs as a manifest; run it with GNU parallel, then judge'
	@echo '  make judge RUN=<dir> [MATRIX=...]   parse and judge a results directory'
	@echo '  make compare-runs A=<dir> B=<dir>   two runs cell by cell'
	@echo '  make critical-path RUN=<dir> [CORES=16]   a make test run scheduled on CORES cores, on paper'
	@echo '  make stall-report RUN=<dir>   re-render a stall-probe run'
	@echo '  make stall-probe [STALL_REPEAT=3]   a static key flipped every 2 ms, per kernel and TCG mode'
	@echo '  make code-size [CODE_SIZE="stock cow"]   bloat-o-meter between two built kernels'
	@echo '  make clean       remove results, guest programs, initramfs images'
	@echo '  make distclean   remove $(BUILD) (kernel trees and objects too)'

# ---- the stage graph --------------------------------------------------------
# Each build stage is a file target whose prerequisites are what it is built
# from. A stage whose output may come out unchanged is a pair: NAME.ran is
# the recipe's time stamp, NAME.id its output's identity (a hash, rewritten
# only when it changes, see write_id in scripts/lib.sh), and later stages
# depend on the .id: an unchanged rebuild rebuilds nothing after it.
#   deps -> tree -> kernel <v> -> driver <v>, stap <v>  \
#           tree -> upstream, vmtests; guest programs    -> initramfs <v>-<p> -> run <v>-<p>
# make test: every run of TEST_MATRIX, check, test-bad-input and bench
# QUICK=1 (test-graph), then the one judge (scripts/flow/test.sh).
STAMPS = $(BUILD)/stamps
LIB = . ./scripts/lib.sh &&
SERIES_FILES = $(addprefix $(PATCHES)/,$(shell sed -e 's/\#.*//' $(PATCHES)/series 2>/dev/null | awk 'NF { print $$1 }'))
DEPS_RAN = $(STAMPS)/deps-$(shell echo $(PACKAGES) $(EXTRA_PACKAGES) | cksum | cut -d' ' -f1).ran
GUEST_DIRS = $(addprefix $(CURDIR)/,tests/guest tests/guest/lib guest guest/adapters benchmarks)
GUEST_SRCS = $(wildcard $(addsuffix /*.c,$(GUEST_DIRS)) $(addsuffix /*.h,$(GUEST_DIRS)) $(CURDIR)/guest/adapters/*.sh)
IMAGE_INPUTS = guest/init.sh $(wildcard qemu-profiles/features/*.setup tests/groups/*.list \
	guest/groups/*.list tests/expect/*.tsv) scripts/build/initramfs.sh
# 6.1's own vm selftests (scripts/build/vmtests.sh) are the 6.1 line's;
# 6.12's mm selftests are not built yet.
VMTESTS_LINES = 6.1
GUEST_IDS = $(STAMPS)/guest.id $(STAMPS)/upstream.id $(if $(filter $(KERNEL),$(VMTESTS_LINES)),$(STAMPS)/vmtests.id)
UPSTREAM_TAR ?= /usr/src/linux-source-6.12.tar.xz
status_of = $(RDIR)/$(subst :,-,$(1)).status
TEST_STATUS = $(foreach vp,$(TEST_MATRIX),$(call status_of,$(vp)))

$(DEPS_RAN):
	@$(LIB) run_stage deps scripts/build/deps.sh $(PACKAGES) $(EXTRA_PACKAGES)
	@mkdir -p $(STAMPS) && touch $@

$(STAMPS)/tree.ran: $(PATCHES)/series $(wildcard $(SERIES_FILES) $(KTAR)) scripts/build/tree.sh | $(DEPS_RAN)
	@$(LIB) run_stage tree scripts/build/tree.sh $(KTAR) $(KSRC) $(PATCHES) $(TESTED_DEBIAN_VERSION) $(STAMPS)/tree.id
	@touch $@
$(STAMPS)/tree.id: $(STAMPS)/tree.ran ;

# The unpatched kernel's tree: a worktree of the tag "base" (Debian's source).
$(STAMPS)/stock-tree.ran: $(wildcard $(KTAR)) | $(STAMPS)/tree.ran
	@[ -d $(STOCK_TREE) ] || git -C $(KSRC) worktree add -q --detach $(STOCK_TREE) base
	@$(LIB) write_id $(STAMPS)/stock-tree.id $$(git -C $(STOCK_TREE) rev-parse HEAD)
	@touch $@
$(STAMPS)/stock-tree.id: $(STAMPS)/stock-tree.ran ;

# A mutant's (or benchmark variant's) tree: branch cow-policy of the main
# tree plus its patch.
define mutant_rules
$(call pdir_of,$(1))/tree.ran: $(STAMPS)/tree.id $(call patch_of,$(1))
	@$$(LIB) run_stage "mutant tree $(1)" scripts/build/mutant-tree.sh $(KSRC) $(call pdir_of,$(1)) $(CURDIR)/$(call patch_of,$(1))
	@touch $$@
$(call pdir_of,$(1))/tree.id: $(call pdir_of,$(1))/tree.ran ;
endef
$(foreach m,$(PATCHED_ALL),$(eval $(call mutant_rules,$(m))))

define variant_rules
$(call obj_of,$(1))/.kernel.ran: $(call tree_id,$(1)) $(FRAGMENTS_$(1)) configs/pending.txt \
		$(filter-out tinyconfig,$(KCONFIG_BASE)) \
		scripts/build/kconfig.sh scripts/build/kernel.sh | $(DEPS_RAN)
	@$$(LIB) run_stage "kernel $(1)" sh -c 'SEED_OBJ=$(SEED_OBJ_$(1)) scripts/build/kconfig.sh $(1) $(call tree_of,$(1)) $(call obj_of,$(1)) \
		configs/pending.txt $(FRAGMENTS_$(1)) && scripts/build/kernel.sh $(1) $(call tree_of,$(1)) $(call obj_of,$(1))'
	@touch $$@
$(call obj_of,$(1))/kernel.id: $(call obj_of,$(1))/.kernel.ran ;

# The cowpin pinning driver (driver/cowpin/), built against the variant.
$(BUILD)/driver/$(1)/.driver.ran: $(call obj_of,$(1))/kernel.id $(wildcard driver/cowpin/*) scripts/build/driver.sh
	@$$(LIB) run_stage "driver $(1)" scripts/build/driver.sh $(1) $(call tree_of,$(1)) $(call obj_of,$(1))
	@touch $$@
$(BUILD)/driver/$(1)/driver.id: $(BUILD)/driver/$(1)/.driver.ran ;

$(BUILD)/stap/$(1)/.stap.ran: $(call obj_of,$(1))/kernel.id benchmarks/stap/cow_decisions.stp scripts/build/stap.sh
	@$$(LIB) run_stage "stap $(1)" $(KBUILD_TURN) scripts/build/stap.sh $(1) $(call obj_of,$(1)) cow_decisions
	@$$(LIB) write_id $(BUILD)/stap/$(1)/stap.id $$$$(hash_tree $(BUILD)/stap/$(1)/cow_decisions.ko)
	@touch $$@
$(BUILD)/stap/$(1)/stap.id: $(BUILD)/stap/$(1)/.stap.ran ;
endef
$(foreach v,$(VARIANTS) $(PATCHED_ALL),$(eval $(call variant_rules,$(v))))

$(STAMPS)/guest.ran: $(GUEST_SRCS) $(GUEST_DIRS) scripts/build/guest.sh | $(DEPS_RAN)
	@$(LIB) run_stage "guest programs" scripts/build/guest.sh
	@$(LIB) write_id $(STAMPS)/guest.id $$(cd $(BUILD)/guest/bin && hash_files $$(cat .built))
	@touch $@
$(STAMPS)/guest.id: $(STAMPS)/guest.ran ;

# Upstream's cow.c and gup_longterm.c (linux-source-6.12) and 6.1's own vm
# selftests, both against the tree's uapi headers.
$(STAMPS)/upstream.ran: $(STAMPS)/tree.id $(wildcard $(UPSTREAM_TAR)) tests/upstream/shim.h scripts/build/upstream.sh
	@$(LIB) run_stage "upstream tests" scripts/build/upstream.sh $(KSRC)
	@$(LIB) write_id $(STAMPS)/upstream.id $$(hash_files $(BUILD)/guest/bin/upstream_*)
	@touch $@
$(STAMPS)/upstream.id: $(STAMPS)/upstream.ran ;
$(STAMPS)/vmtests.ran: $(STAMPS)/tree.id scripts/build/vmtests.sh tests/vm-selftests $(wildcard tests/vm-selftests/*.patch)
	@$(LIB) run_stage "vm selftests" scripts/build/vmtests.sh $(KSRC)
	@$(LIB) write_id $(STAMPS)/vmtests.id $$(hash_files $(BUILD)/guest/bin/vm61_*)
	@touch $@
$(STAMPS)/vmtests.id: $(STAMPS)/vmtests.ran ;

# make test runs its kernel lines side by side (scripts/flow/test.sh): the
# guest runs, bench boots and test-bad-input of every line take turns under
# the lock file COWTEST_GUEST_LOCK (one per make test), beside at most one
# kernel build (scripts/build/kernel.sh: its own lock, nice 19). Stage times
# exclude the wait.
GUEST_LOCK = $(if $(COWTEST_GUEST_LOCK),flock $(COWTEST_GUEST_LOCK))
# The systemtap module build (kbuild against the kernel: minutes of two
# cores) takes its turn with the kernel builds, at their nice.
KBUILD_TURN = flock $(or $(KBUILD_LOCK),/run/lock/cow-policy-kernel-build.lock) nice -n $(or $(KBUILD_NICE),19)

# One image per (variant, profile); one run per (variant, profile) in
# results/<RUN_ID>/, whose verdict is <variant>-<profile>.status. A run
# always runs (phony); its recipe succeeds whatever the verdict, so that
# make -k test runs every other run and the judge sees them all.
define image_rules
$(BUILD)/initramfs/$(1)-$(2).img: $(call obj_of,$(1))/kernel.id $(call DRIVER_ID,$(1)) \
		$(if $(filter $(1),$(STAP_VARIANTS)),$(BUILD)/stap/$(1)/stap.id) $(GUEST_IDS) \
		$(wildcard $(BUILD)/stap/$(1)/*.ko) qemu-profiles/$(2).profile $(IMAGE_INPUTS)
	@$$(LIB) run_stage "initramfs $(1)-$(2)" scripts/build/initramfs.sh $(1) $(2) $(call obj_of,$(1))
$(RDIR)/$(1)-$(2).status: $(BUILD)/initramfs/$(1)-$(2).img
	@$(GUEST_LOCK) scripts/boot/run-qemu.sh $(1) $(2) $(call obj_of,$(1)) || true
	@$$(LIB) [ -s $$@ ] || { record fail "run $(1)-$(2) (no result: the run did not start or died early)"; \
		mkdir -p $(RDIR); echo "fail the run did not start or died early" >$$@; }
endef
$(foreach v,$(VARIANTS) $(PATCHED_ALL),$(foreach p,$(PROFILES),$(eval $(call image_rules,$(v),$(p)))))
.PHONY: $(foreach v,$(VARIANTS),$(foreach p,$(PROFILES),$(RDIR)/$(v)-$(p).status)) $(RDIR)/bench-quick.status \
	$(RDIR)/bench-insn.status

# make bench QUICK=1: one tiny deterministic round of every benchmark on
# the line's test kernel (BENCH_COW: debug, the one make test builds, in
# the cow kernel's place), through collect, report and plots: proves the
# bench pipeline; its figures are a debug kernel's.
# TEST_KERNEL_VARIANT: the line's test kernel, which bench QUICK=1 and
# make test-bad-input boot.
TEST_KERNEL_VARIANT = $(firstword $(TEST_VARIANTS))
$(RDIR)/bench-quick.status: $(BUILD)/initramfs/$(TEST_KERNEL_VARIANT)-bench.img
	@$(LIB) if QUICK=1 BENCH_NOBUILD=1 BENCH_COW=$(TEST_KERNEL_VARIANT) BENCH_RUN=$(RDIR)/bench-quick $(GUEST_LOCK) scripts/flow/bench.sh; then \
		record pass "bench QUICK=1 ($(RDIR)/bench-quick/report.md)"; echo pass >$@; \
	else record fail "bench QUICK=1"; echo fail >$@; fi

# make bench-insn on one tiny cell (copy-64, cow and stock, one boot each):
# the QEMU plugin's windows must be cowbench's timed sections and its
# counts must agree with cowbench's det time (scripts/report/insn_report.py).
$(RDIR)/bench-insn.status: $(BUILD)/initramfs/cow-bench.img $(BUILD)/initramfs/stock-bench.img $(BUILD)/insn/insncount.so
	@$(LIB) if QUICK=1 BENCH_NOBUILD=1 BENCH_INSN=copy-64 BENCH_COMMAND="make bench-insn (make test)" \
		BENCH_RUN=$(RDIR)/bench-insn $(GUEST_LOCK) scripts/flow/bench.sh >$(RDIR)/bench-insn.out 2>&1; then \
		record pass "bench-insn copy-64: plugin windows and counts agree with cowbench ($(RDIR)/bench-insn/insn.md)"; echo pass >$@; \
	else record fail "bench-insn copy-64: $$(grep -E 'insn_report|FAILED' $(RDIR)/bench-insn.out | head -n 3 | tr '\n' ' ')"; echo fail >$@; fi

# make test's graph for one kernel line: the runs of the line's matrix;
# make check and test-bad-input once, with the first line of TEST_KERNELS
# (TEST_ONCE=yes, set by scripts/flow/test.sh; alone, make test-graph runs
# them); bench QUICK=1 (the cow kernel alone) on the lines of
# TEST_BENCH_LINES, bench-insn (cow against stock) on those of
# TEST_INSN_LINES: 6.12 with TEST_STOCK=yes, which builds its unpatched
# kernel anyway.
TEST_ONCE ?= yes
TEST_BENCH_LINES ?= 6.1
TEST_INSN_LINES ?= $(if $(STOCK_ON),6.12)
TEST_BENCH = $(if $(filter $(KERNEL),$(TEST_BENCH_LINES)),$(RDIR)/bench-quick.status) \
	$(if $(filter $(KERNEL),$(TEST_INSN_LINES)),$(RDIR)/bench-insn.status)
TEST_BENCH_IMAGES = $(if $(filter $(KERNEL),$(TEST_BENCH_LINES)),$(TEST_KERNEL_VARIANT):bench) \
	$(if $(filter $(KERNEL),$(TEST_INSN_LINES)),cow:bench stock:bench)
test-graph: $(if $(TEST_ONCE),check test-bad-input) $(TEST_STATUS) $(TEST_BENCH)

# The build stages of make test, "name=file" (scripts/flow/test.sh prints
# "up to date" for those that are).
TEST_VARIANTS_ALL = $(sort $(foreach vp,$(TEST_MATRIX),$(firstword $(subst :, ,$(vp)))))
print-build-targets:
	@echo tree=$(STAMPS)/tree.id guest_programs=$(STAMPS)/guest.id \
		upstream_tests=$(STAMPS)/upstream.id $(if $(filter $(KERNEL),$(VMTESTS_LINES)),vm_selftests=$(STAMPS)/vmtests.id) \
		$(foreach v,$(TEST_VARIANTS_ALL),kernel_$(v)=$(BUILD)/obj-$(v)/kernel.id \
			$(if $(call DRIVER_ID,$(v)),driver_$(v)=$(call DRIVER_ID,$(v)))) \
		$(foreach v,$(filter $(STAP_VARIANTS),$(TEST_VARIANTS_ALL)),stap_$(v)=$(BUILD)/stap/$(v)/stap.id) \
		$(foreach vp,$(TEST_MATRIX) $(TEST_BENCH_IMAGES),initramfs_$(subst :,-,$(vp))=$(BUILD)/initramfs/$(subst :,-,$(vp)).img)

# make print-obj-<variant>: that variant's object dir (scripts/flow/bench.sh).
print-obj-%:
	@echo '$(call obj_of,$*)'

# make print-VAR: the value of a make variable (for scripts and checks).
print-%:
	@echo '$($*)'

# ---- the targets people type -------------------------------------------------
deps:
	@scripts/build/deps.sh $(PACKAGES) $(EXTRA_PACKAGES)
	@mkdir -p $(STAMPS) && touch $(DEPS_RAN)

# make tree always re-checks the tree against the line's patches/<line>/series.
tree: | $(DEPS_RAN)
	@rm -f $(STAMPS)/tree.ran
	@$(MAKE) --no-print-directory $(STAMPS)/tree.ran

export:
	@scripts/build/export.sh $(KSRC) $(PATCHES)

kernel: $(OBJ)/kernel.id
driver: $(BUILD)/driver/$(VARIANT)/driver.id
guest: $(GUEST_IDS)
initramfs: $(BUILD)/initramfs/$(VARIANT)-$(PROFILE).img
# images [MATRIX="v:p ..."]: every image the runs need, built before a fan-out.
MATRIX ?= $(TEST_MATRIX)
images: $(foreach vp,$(MATRIX),$(BUILD)/initramfs/$(subst :,-,$(vp)).img)

# make run VARIANT= PROFILE= [POLICY=]: builds what the run needs, then runs
# it; fails when the run failed.
run: $(RDIR)/$(VARIANT)-$(PROFILE).status
	@grep -q '^pass' $<

# make test's disk check (scripts/build/disk.sh): MiB free it wants on the
# build directory's filesystem for every run (DISK_WARM_MIB), and for each
# line of TEST_KERNELS whose tree is not there yet (DISK_FRESH_MIB_<line>).
# 6.1: a clean clone's build directory held 4320 MiB after make test (run
# 20261206-170127, meta.env build_mib; ccache grew by 106 MiB from empty).
# 6.12: its tree and unpatched tree, two kernels' objects and the images.
DISK_WARM_MIB ?= 1024
DISK_FRESH_MIB_6.1 ?= 3840
DISK_FRESH_MIB_6.12 ?= 3584
DISK_LINES = $(foreach l,$(TEST_KERNELS),$(call line_build,$(l))/linux-source-$(l)=$(DISK_FRESH_MIB_$(l)))
test:
	@MAKE="$(MAKE)" JOBS="$(JOBS)" DISK_WARM_MIB=$(DISK_WARM_MIB) DISK_LINES="$(DISK_LINES)" scripts/flow/test.sh

# make test-stock: make test with each line's unpatched kernel booted too
# (TEST_STOCK=yes; KERNEL=6.1 or 6.12 for one line): the judge compares
# exclusive with it case by case on 6.1's selftests and upstream's suite,
# and bench-insn sets cow against stock on 6.12 (two more kernel builds:
# their cold times are in the stage lines of runs 20261206-203024 and
# 20261207-043037).
test-stock:
	@$(MAKE) --no-print-directory test TEST_STOCK=yes

# The list of runs of TEST_MATRIX as a manifest (scripts/flow/fanout.sh):
# one line per run, for GNU parallel or another job runner.
manifest:
	@scripts/flow/fanout.sh manifest $(TEST_MATRIX)

# The manifest run by GNU parallel (PARALLEL="--sshloginfile hosts" etc.),
# then the judge: make's graph is not the only way to run the matrix.
PARALLEL ?=
fanout:
	@MAKE="$(MAKE)" scripts/flow/fanout.sh parallel $(PARALLEL)

# The one judge over a results directory made by any runner: make judge
# RUN=<dir> [MATRIX="v:p ..."] (default TEST_MATRIX).
judge:
	@test -n "$(RUN)" || { echo 'usage: make judge RUN=<results dir> [MATRIX="v:p ..."]' >&2; exit 1; }
	@python3 scripts/report/results.py $(RUN) | head -n 1
	@python3 scripts/report/judge.py $(RUN) --runs "$(MATRIX)"

# Two runs' case results, cell by cell (a serial and a parallel make test).
compare-runs:
	@test -n "$(A)" && test -n "$(B)" || { echo 'usage: make compare-runs A=<results dir> B=<results dir>' >&2; exit 1; }
	@python3 scripts/report/compare_runs.py $(A) $(B)

# make critical-path RUN=<make test dir> [CORES=16]: that run's stage graph
# scheduled on CORES cores, on paper (scripts/report/critical_path.py).
CORES ?= 16
critical-path:
	@test -n "$(RUN)" || { echo 'usage: make critical-path RUN=<make test results dir> [CORES=16]' >&2; exit 1; }
	@python3 scripts/report/critical_path.py $(RUN) --cores $(CORES)

# RESULTS.md (committed) from run directories: make report RUN="<test run>
# <bench run> <mutants run>"; make check validates the committed file. Each
# run is read once into the results model (scripts/report/cowresults), whose
# digest (digests/<run>.json, committed) keeps it for the next make report
# ADD=; the bench statistics need scipy (SCIPY_PYTHON), the Findings' plots
# (docs/plots/*.svg, committed) gnuplot.
report:
	@test -n "$(RUN)$(ADD)" || { echo 'usage: make report RUN="<results dir>..." (a new RESULTS.md) or ADD="<results dir>..." (into the committed one)' >&2; exit 1; }
	@test -z "$(RUN)" -o -z "$(ADD)" || { echo 'make report: RUN= writes a new RESULTS.md, ADD= adds to it: give one' >&2; exit 1; }
	@$(SCIPY_PYTHON) scripts/report/results_md.py --plots docs/plots $(if $(ADD),add RESULTS.md $(ADD),write RESULTS.md $(RUN)) && python3 scripts/report/results_md.py check RESULTS.md

# The series as an RFC to linux-mm (scripts/report/rfc.py): a cover letter
# (docs/rfc-cover.txt, the patch organisation, the Findings and Performance
# of the results model in digests/, the Debian version the series applies
# to) and the patches of the line's series (patches/<line>/series; make rfc
# KERNEL=6.12 for 6.12's) with "RFC PATCH" subjects, as git format-patch
# --cover-letter --rfc writes them, into RFC_DIR. The sender:
# FROM="Name <addr>", else git config user.name and user.email; it
# replaces the committed patches' neutral identity in From: and
# Signed-off-by: and is the M: line of the series' MAINTAINERS entry, a
# backport keeps its upstream author and trailers and gets the sender's
# sign-off. A sender without a name or with a placeholder address
# (example.org/.com/.net, .example, .invalid, .test, localhost, noreply)
# is refused with one error line.
RFC_DIR ?= $(BUILD)/rfc
FROM ?=
rfc:
	@python3 scripts/report/rfc.py --patches $(PATCHES) --out $(RFC_DIR) --base $(TESTED_DEBIAN_VERSION) --line $(KERNEL) $(if $(FROM),--from "$(FROM)")

# Under make test, check waits for the tree: checkpatch and the copies kept
# both here and in the tree need it (alone it skips those, naming why).
check: $(if $(filter test-graph,$(MAKECMDGOALS)),$(STAMPS)/tree.id)
	@$(LIB) run_stage check scripts/check/check.sh

# Bisectability: build every prefix of the series with CONFIG_COW_POLICY=y
# and =n (slow: about 40 minutes on 2 cores).
check-series: $(STAMPS)/tree.id
	@FRAGMENTS_COW="$(FRAGMENTS_COW_$(KERNEL))" sh scripts/check/check-series.sh $(KSRC) $(PATCHES) $(BUILD)

# The same prefixes, compiling only the objects the series touches (minutes).
check-series-quick: $(STAMPS)/tree.id
	@QUICK=1 FRAGMENTS_COW="$(FRAGMENTS_COW_$(KERNEL))" sh scripts/check/check-series.sh $(KSRC) $(PATCHES) $(BUILD)

# The kernel built with CONFIG_COW_POLICY=n on the base profile: it must
# behave as unpatched 6.1 (tests/expect/skips.tsv's nocow rows). make test
# with that one run (and check, and the stages it needs).
test-nocow:
	@$(MAKE) --no-print-directory test TEST_KERNELS=6.1 KERNEL=6.1 TEST_MATRIX=nocow:base

# The mutation check: tests/mutants/*.patch (MUTANTS="a b" for some), each
# built on the series and booted; each must fail exactly its expected cells.
MUTANTS ?=
test-mutants: $(STAMPS)/tree.id
	@MAKE="$(MAKE)" MUTANTS_ALL="$(MUTANTS_ALL)" sh scripts/check/mutants.sh $(KSRC) $(MUTANTS)

shell: $(BUILD)/initramfs/$(VARIANT)-$(PROFILE).img
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

# Do the lean kernels' figures carry over to the configuration users run?
# make bench-distro: the cow and stock kernels built from Debian's own
# configuration of 6.1 (package linux-config-6.1; modules off, then
# configs/distro.config) in $(DISTRO_BUILD), the same tree, then make bench
# on them (det mode, DISTRO_BOOTS boots, the fault and fork benchmarks:
# BENCH_REAL=all adds the real software) -> results/bench-distro-*/. No
# systemtap modules: without debug information there is nothing to probe.
DISTRO_CONFIG ?= /usr/src/linux-config-6.1/config.amd64_none_amd64.xz
DISTRO_BUILD  ?= $(BUILD)/distro
DISTRO_BOOTS  ?= 3
bench-distro: | $(DEPS_RAN)
	@scripts/build/deps.sh linux-config-6.1
	@$(MAKE) --no-print-directory bench BUILD=$(DISTRO_BUILD) KSRC=$(KSRC) STOCK_TREE=$(STOCK_TREE) \
		KCONFIG_BASE=$(DISTRO_CONFIG) FRAGMENTS_BASE=configs/distro.config STAP_VARIANTS= \
		BENCH_MODES="$(or $(BENCH_MODES),det)" BENCH_BOOTS=$(DISTRO_BOOTS) BENCH_COMMAND="make bench-distro" \
		BENCH_REAL="$(or $(BENCH_REAL),none)" \
		BENCH_RUN=$(or $(BENCH_RUN),$(RESULTS)/bench-distro-$(RUN_ID)-$(shell git rev-parse --short=7 HEAD 2>/dev/null || echo nogit))

# Where do a benchmark's instructions go? make bench-insn boots cow (policy
# INSN_POLICY) and stock once each in det mode, running what a make bench
# det boot runs (every benchmark, INSN_ROUNDS rounds, seed INSN_SEED, no real
# software), with the QEMU plugin benchmarks/insn/insncount.c counting the
# instructions of INSN_BENCH's timed sections by address;
# scripts/report/insn_report.py sets them per function and per operation
# against each other -> results/insn-*/insn.md.
# INSN_BENCH=<benchmark>-<KiB> (fork-256, copy-1024, thpcopy-2048, ...).
INSN_BENCH  ?= fork-256
INSN_POLICY ?= exclusive
INSN_ROUNDS ?= 15
INSN_SEED   ?= 1
bench-insn: $(BUILD)/insn/insncount.so
	@MAKE="$(MAKE)" BENCH_INSN=$(INSN_BENCH) BENCH_POLICIES=$(INSN_POLICY) BENCH_ROUNDS=$(INSN_ROUNDS) BENCH_SEED=$(INSN_SEED) \
		BENCH_COMMAND="make bench-insn INSN_BENCH=$(INSN_BENCH) INSN_POLICY=$(INSN_POLICY) INSN_ROUNDS=$(INSN_ROUNDS) INSN_SEED=$(INSN_SEED)" \
		BENCH_RUN=$(or $(BENCH_RUN),$(RESULTS)/insn-$(RUN_ID)-$(shell git rev-parse --short=7 HEAD 2>/dev/null || echo nogit)) \
		scripts/flow/bench.sh

$(BUILD)/insn/insncount.so: benchmarks/insn/insncount.c | $(DEPS_RAN)
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra -Werror -shared -fPIC -o $@ $<

test-harness-failures:
	@MAKE="$(MAKE)" scripts/check/harness-failures.sh

# Host-side bad-input tests of the harness (seconds): unknown profile,
# policy, variant, a missing package, corrupted and non-applying patches,
# a guest that never boots. Run by make test after make check.
test-bad-input: $(BUILD)/initramfs/$(TEST_KERNEL_VARIANT)-base.img
	@$(LIB) export MAKE="$(MAKE)" && run_stage test-bad-input $(GUEST_LOCK) scripts/check/test-bad-input.sh

# systemtap (benchmarks/stap/): compile SCRIPT (default: all) on the host
# for VARIANT into $(BUILD)/stap/<variant>/; the initramfs of that variant
# then carries the modules, staprun and stapio.
SCRIPT ?=
stap: $(OBJ)/kernel.id
	@scripts/build/stap.sh $(VARIANT) $(OBJ) $(SCRIPT)

# make trace PROFILE=<p> POLICY=<policy> SCRIPT=<name> [WORKLOAD="cmd args"]
trace:
	@MAKE="$(MAKE)" SCRIPT="$(SCRIPT)" WORKLOAD="$(WORKLOAD)" scripts/flow/trace.sh

# The jump-label stall probe (scripts/flow/stall.sh): a static key flipped
# every 2 ms under write faults, per kernel and accelerator, tabulated.
stall-probe:
	@MAKE="$(MAKE)" scripts/flow/stall.sh

# Re-render a stall-probe run's report.md from its boots: make stall-report RUN=<dir>
stall-report:
	@test -n "$(RUN)" || { echo 'usage: make stall-report RUN=<results/stall-... dir>' >&2; exit 1; }
	@BUILD="$(BUILD)" python3 scripts/report/stall_report.py $(RUN)

# The generated code of two built kernels, function by function (the tree's
# scripts/bloat-o-meter): make code-size [CODE_SIZE="stock cow"]. Where the
# framework's instructions on the default path are.
CODE_SIZE ?= stock cow
code-size:
	@set -- $(CODE_SIZE); test $$# = 2 || { echo 'usage: make code-size [CODE_SIZE="<variant> <variant>"]' >&2; exit 2; }; \
	for v in $$1 $$2; do test -f $(BUILD)/obj-$$v/vmlinux || { echo "code-size: no $(BUILD)/obj-$$v/vmlinux (make kernel VARIANT=$$v)" >&2; exit 1; }; done; \
	echo "# bloat-o-meter $(BUILD)/obj-$$1/vmlinux $(BUILD)/obj-$$2/vmlinux"; \
	python3 $(KSRC)/scripts/bloat-o-meter $(BUILD)/obj-$$1/vmlinux $(BUILD)/obj-$$2/vmlinux

# The flip stress for DURATION minutes (default 30) on VARIANT (default
# debug) in the flip profile: make soak DURATION=30
DURATION ?= 30
soak:
	@MAKE="$(MAKE)" DURATION="$(DURATION)" VARIANT="$(if $(filter command line,$(origin VARIANT)),$(VARIANT),debug)" scripts/flow/soak.sh

clean:
	rm -rf $(RESULTS) $(foreach l,$(KERNELS),$(call line_build,$(l))/guest $(call line_build,$(l))/initramfs)

distclean:
	rm -rf $(BUILD_ROOT) $(RESULTS)
