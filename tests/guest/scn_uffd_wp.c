// SPDX-License-Identifier: GPL-2.0
/*
 * scn_uffd_wp: userfaultfd write-protect.
 *
 * uffd-wp-race (seed 008, Nadav Amit's race): WRITERS threads on all CPUs
 *     keep incrementing their own counters in NPAGES pages while the main
 *     thread write-protects and unprotects the whole range in a loop and a
 *     handler thread resolves each write-protect fault by unprotecting the
 *     page.  Budget: BUDGET_S seconds, or up to MAX_S until the race has
 *     run MIN_RACE times.  Outcome: "lost-write" if any counter
 *     in memory differs from the count its writer made, else "ok" if the
 *     race ran (at least MIN_RACE protect cycles and write-protect faults),
 *     else "no-race", which no row expects.
 * uffd-wp-race-pinned (pin profile): the same on pages pinned
 *     FOLL_WRITE|FOLL_LONGTERM; afterwards the device must read what the
 *     CPU sees, else "stale-pin".
 * uffd-wp-monitor (seeds 000/001, Peter Xu's uffd-wp case): the range is
 *     write-protected and shared with a child; the child reads it through
 *     /proc/<parent>/mem (access_remote_vm(): a FOLL_GET GUP read, as
 *     ptrace and process_vm_readv() do; the guest kernel has no
 *     CONFIG_CROSS_MEMORY_ATTACH) while nobody handles uffd faults.  A GUP read that
 *     broke COW by faulting for write (v5.8) would block forever: "hang"
 *     after MONITOR_S seconds.  The pages must also stay write-protected
 *     (pagemap uffd-wp bit), else "wp-lost".  Deterministic.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scn.h"
#include "cowpin_lib.h"

#define NPAGES		8
#define LEN		(NPAGES * PAGE_SIZE)
#define WRITERS		3
#define BUDGET_S	3.0
#define MONITOR_S	10
#define MIN_RACE	100
#define MAX_S		30.0

static int uffd = -1;
static char *mem;
static volatile int stop_writers, stop_handler;
static unsigned long counts[WRITERS][NPAGES];

static int uffd_open(void)
{
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP };
	int fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		bail("userfaultfd");
	if (ioctl(fd, UFFDIO_API, &api))
		bail("UFFDIO_API");
	return fd;
}

static void uffd_register(int fd, void *p, unsigned long len)
{
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)p, .len = len },
		.mode = UFFDIO_REGISTER_MODE_WP,
	};

	if (ioctl(fd, UFFDIO_REGISTER, &reg))
		bail("UFFDIO_REGISTER");
}

static int uffd_wp(int fd, void *p, unsigned long len, bool protect)
{
	struct uffdio_writeprotect wp = {
		.range = { .start = (uintptr_t)p, .len = len },
		.mode = protect ? UFFDIO_WRITEPROTECT_MODE_WP : 0,
	};

	return ioctl(fd, UFFDIO_WRITEPROTECT, &wp);
}

static void *writer(void *arg)
{
	long w = (long)arg;

	while (!stop_writers)
		for (int i = 0; i < NPAGES; i++) {
			volatile unsigned long *slot =
				(unsigned long *)(mem + i * PAGE_SIZE + w * 64);

			*slot = *slot + 1;
			counts[w][i]++;
		}
	return NULL;
}

static void *handler(void *arg)
{
	volatile long *faults = arg;

	while (!stop_handler) {
		struct pollfd pfd = { .fd = uffd, .events = POLLIN };
		struct uffd_msg msg;

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		if (read(uffd, &msg, sizeof(msg)) != sizeof(msg))
			continue;
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		if (msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP) {
			void *page = (void *)(uintptr_t)(msg.arg.pagefault.address & ~(PAGE_SIZE - 1));

			uffd_wp(uffd, page, PAGE_SIZE, false);
			(*faults)++;
		}
	}
	return NULL;
}

static void race(const char *name, bool pinned)
{
	const struct scn_row *row = scn_begin(name);
	struct vmstat before, after;
	pthread_t tw[WRITERS], th;
	volatile long faults = 0;
	long lost = 0, cycles = 0, dev_stale = 0;
	static char dev[LEN];
	cpu_set_t all;
	uint64_t h = 0;
	int pfd = -1;
	double t0;

	if (!row)
		return;
	mem = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		bail("mmap");
	madvise(mem, LEN, MADV_NOHUGEPAGE);
	memset(mem, 0, LEN);
	memset(counts, 0, sizeof(counts));
	if (pinned) {
		int ret;

		pfd = cowpin_open();
		if (pfd < 0) {
			scn_ok(false, "%s: open %s: %m", name, COWPIN_DEVICE);
			return;
		}
		ret = cowpin_reg(pfd, mem, LEN, COWPIN_F_WRITE | COWPIN_F_LONGTERM, &h);
		if (ret) {
			scn_ok(false, "%s: register: %s", name, strerror(-ret));
			return;
		}
	}
	uffd = uffd_open();
	uffd_register(uffd, mem, LEN);
	/* Writers on every CPU: the race needs a TLB on another CPU. */
	CPU_ZERO(&all);
	for (int c = 0; c < CPU_SETSIZE && c < 64; c++)
		CPU_SET(c, &all);
	sched_setaffinity(0, sizeof(all), &all);
	scn_warm(&before);
	stop_writers = stop_handler = 0;
	if (pthread_create(&th, NULL, handler, (void *)&faults))
		bail("pthread_create");
	for (long w = 0; w < WRITERS; w++)
		if (pthread_create(&tw[w], NULL, writer, (void *)w))
			bail("pthread_create");
	t0 = scn_now();
	/*
	 * BUDGET_S, and longer (up to MAX_S) until the race has run
	 * MIN_RACE protect cycles and write-protect faults: a busy or slow
	 * host must not turn the case into "no-race".
	 */
	while (scn_now() - t0 < BUDGET_S ||
	       ((cycles < MIN_RACE || faults < MIN_RACE) && scn_now() - t0 < MAX_S)) {
		if (uffd_wp(uffd, mem, LEN, true))
			bail("UFFDIO_WRITEPROTECT");
		usleep(200);
		if (uffd_wp(uffd, mem, LEN, false))
			bail("UFFDIO_WRITEPROTECT");
		usleep(200);
		cycles++;
	}
	stop_writers = 1;
	uffd_wp(uffd, mem, LEN, false);
	for (int w = 0; w < WRITERS; w++)
		pthread_join(tw[w], NULL);
	stop_handler = 1;
	pthread_join(th, NULL);
	vmstat_read(&after);
	for (int w = 0; w < WRITERS; w++)
		for (int i = 0; i < NPAGES; i++)
			lost += *(unsigned long *)(mem + i * PAGE_SIZE + w * 64) != counts[w][i];
	if (pinned) {
		memset(dev, 0, LEN);
		if (cowpin_dev_read(pfd, h, 0, LEN, dev))
			bail("device read");
		dev_stale = memcmp(dev, mem, LEN) != 0;
		cowpin_dereg(pfd, h);
		close(pfd);
	}
	close(uffd);
	{
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(0, &one);
		sched_setaffinity(0, sizeof(one), &one);
	}
	/*
	 * "ok" is a claim only if the race ran: the range was write-protected
	 * and unprotected again and again, and the writers hit
	 * write-protect faults the handler resolved.
	 */
	scn_end(row, lost ? "lost-write" : dev_stale ? "stale-pin" :
		cycles >= MIN_RACE && faults >= MIN_RACE ? "ok" : "no-race", &before,
		&after, "cycles=%ld wp_faults=%ld lost_counters=%ld budget=%.0fs",
		cycles, faults, lost, BUDGET_S);
	munmap(mem, LEN);
}

static void monitor(void)
{
	const struct scn_row *row = scn_begin("uffd-wp-monitor");
	struct vmstat before, after;
	static char buf[LEN];
	int go[2], back[2], wp = 0, status;
	char res = '?';
	struct pollfd pfd;
	pid_t pid;

	if (!row)
		return;
	mem = map_anon_ptes(LEN, 'm');
	uffd = uffd_open();
	uffd_register(uffd, mem, LEN);
	if (uffd_wp(uffd, mem, LEN, true))
		bail("UFFDIO_WRITEPROTECT");
	pid = fork_piped(go, back);
	if (!pid) {
		struct vmstat scratch;
		char path[64], c;
		int memfd;

		scn_warm(&scratch);
		memset(buf, 0, LEN);
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)getppid());
		memfd = open(path, O_RDONLY);
		if (write(back[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		/* access_remote_vm(): FOLL_FORCE|FOLL_GET, no FOLL_WRITE. */
		if (pread(memfd, buf, LEN, (uintptr_t)mem) != (ssize_t)LEN) {
			printf("# uffd-wp-monitor: read /proc/%d/mem: %m\n", (int)getppid());
			fflush(stdout);
			c = 'e';
		} else {
			c = scn_count_diff(buf, 'm', LEN) ? 'd' : 'o';
		}
		_exit(write(back[1], &c, 1) == 1 ? 0 : 3);
	}
	if (read(back[0], &res, 1) != 1)
		bail("child");
	scn_warm(&before);
	if (write(go[1], "g", 1) != 1)
		bail("pipe");
	pfd.fd = back[0];
	pfd.events = POLLIN;
	res = '?';
	if (poll(&pfd, 1, MONITOR_S * 1000) == 1 && read(back[0], &res, 1) == 1) {
		waitpid(pid, &status, 0);
	} else {
		res = 'h';
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	vmstat_read(&after);
	for (int i = 0; i < NPAGES; i++)
		wp += !!(scn_pagemap(mem + i * PAGE_SIZE) & PM_UFFD_WP);
	scn_end(row, res == 'h' ? "hang" : res != 'o' ? "error" :
		wp != NPAGES ? "wp-lost" : "ok", &before, &after,
		"readv=%s uffd_wp_pages=%d/%d timeout=%ds",
		res == 'o' ? "ok" : res == 'h' ? "hung" : "failed", wp, NPAGES, MONITOR_S);
	uffd_wp(uffd, mem, LEN, false);
	close(uffd);
	close(go[0]); close(go[1]); close(back[0]); close(back[1]);
	munmap(mem, LEN);
}

int main(void)
{
	scn_init("scn_uffd_wp");
	monitor();
	race("uffd-wp-race", false);
	race("uffd-wp-race-pinned", true);
	return scn_finish();
}
