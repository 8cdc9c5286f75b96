/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the guest tests: TAP output, /proc/vmstat snapshots,
 * the policy in force.
 */
#ifndef COWTEST_H
#define COWTEST_H

#include <stdbool.h>
#include <stddef.h>

#define PAGE_SIZE 4096UL

/* TAP */
void tap_plan(int n);
void tap_result(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tap_skip(const char *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Exit status for the runner: 0 when no test point failed. */
int tap_exit(void);

/* /proc/vmstat */
#define VMSTAT_MAX 256
struct vmstat {
	int n;
	char name[VMSTAT_MAX][40];
	long long val[VMSTAT_MAX];
};
void vmstat_read(struct vmstat *vs);
/* Value of a counter, -1 when the kernel does not have it. */
long long vmstat_get(const struct vmstat *vs, const char *name);
/* after - before, 0 when the kernel does not have it. */
long long vmstat_delta(const struct vmstat *before, const struct vmstat *after,
		       const char *name);
bool vmstat_has(const struct vmstat *vs, const char *name);
/*
 * Take the movement between from and to out of after: a window of two
 * parts, before..from and to..after, with the program's own housekeeping
 * in between left out.
 */
void vmstat_skip(struct vmstat *after, const struct vmstat *from,
		 const struct vmstat *to);
/*
 * The counters of PTE-level write-fault decisions (each reuses or copies
 * one page), NULL-terminated, and their total movement.
 */
extern const char *const cow_decision_counters[];
long long vmstat_decisions(const struct vmstat *before, const struct vmstat *after);

/*
 * Zeroed private memory kept out of fork() (MADV_DONTFORK): it stays
 * exclusive and writable in the parent, so writing it after a fork() makes
 * no copy-on-write decision.  For the tests' own bookkeeping, such as
 * vmstat snapshots taken while a child shares the rest.
 */
void *map_dontfork(size_t len);

/* vm.cow_policy: the policy in force ("exclusive" without the sysctl). */
const char *cow_policy_now(void);
bool cow_policy_present(void);
/*
 * Whether this kernel is meant to have it: COWTEST_COW_POLICY from the
 * runner (0 on the nocow and base variants), else whether it has it.  A
 * test skips for a missing vm.cow_policy only when it is not expected.
 */
bool cow_policy_expected(void);
int cow_policy_write(const char *buf, size_t len);

/*
 * Whether the trace event "system/event" is on.  The tests that read
 * cow:cow_policy_change need it on from boot (trace_event= in the
 * profile's KERNEL_CMDLINE) and never switch it themselves: turning an
 * event on patches kernel text (its tracepoint's static key, and
 * sched_switch's for ftrace's comm recording), and multi-threaded TCG in
 * QEMU before 8.1 can then run a stale translated block and hang the
 * guest (README, Known problems).  Boot-time events are switched on
 * before the secondary CPUs come up.
 */
bool trace_event_on(const char *event);

/*
 * A private anonymous mapping of len bytes, filled with c, kept out of THP
 * (MADV_NOHUGEPAGE) so that every write fault is a PTE-level decision.
 */
char *map_anon_ptes(size_t len, char c);

/*
 * fork() a child that exits at once, and reap it: the caller's private
 * anonymous pages are then mapped once again, but no longer exclusive.
 */
void fork_exit_child(void);

/*
 * A parent and its child on a leash: make the pipes go (parent to child)
 * and back (child to parent), then fork(); bails when either fails.
 * Returns what fork() returns.
 */
int fork_piped(int go[2], int back[2]);
/* One byte from fd, or '?' (EOF: the other side died). */
char pipe_getc(int fd);
/* One byte to fd; a process that cannot tell its peer exits with 3. */
void pipe_putc(int fd, char c);

/* Die with a "Bail out!" line. */
void bail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
