// SPDX-License-Identifier: GPL-2.0
/*
 * scn_pin_fork: issue 4 scenarios 3, 4 and 5, pins and fork() (seed 007,
 * the article's RDMA self-test).  Pin profile (/dev/cowpin).  Deterministic.
 *
 * rdma-fork-child-exits (3)  FOLL_WRITE|FOLL_LONGTERM pin, fork(), the
 *     child exits without touching the memory, the parent writes: the
 *     device must read the parent's data, and a device write must be seen
 *     by the parent.
 * rdma-fork-child-alive (4)  the same with the child alive while the
 *     parent writes (and the child must keep the old data).
 * rdma-get-fork-child-exits / -alive  the same with plain FOLL_GET
 *     references (get_user_pages(), as drivers did before FOLL_PIN and as
 *     vmsplice/O_DIRECT still do): fork() cannot tell them from other
 *     references, so the pages are shared with the child.
 * ro-pin-after-fork (5)  a read-only long-term pin taken by the parent on
 *     pages shared with a live child, then the parent writes.
 * ro-pin-before-fork (5)  the read-only pin taken before fork().
 *
 * Outcome: ok (device and CPU see the same pages), stale-pin (the device
 * reads old data or its writes do not reach the CPU), leak (the child
 * sees the parent's later writes).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scn.h"
#include "cowpin_lib.h"

#define NPAGES	16
#define LEN	(NPAGES * PAGE_SIZE)
#define HALF	(LEN / 2)
#define SLACK	8

enum when { PIN_BEFORE_FORK, PIN_AFTER_FORK };

struct cs {
	const char *name;
	uint64_t flags;
	enum when when;
	bool child_alive;
};

static char dev[LEN];

static char xread(int fd)
{
	char c = '?';

	return read(fd, &c, 1) == 1 ? c : '?';
}

static void xwrite(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		_exit(3);
}

static void run(int fd, const struct cs *cs)
{
	const struct scn_row *row = scn_begin(cs->name);
	struct vmstat before, after;
	int go[2], back[2], ret;
	long dev_stale, cpu_stale;
	char child = '-', *mem;
	const char *outcome;
	uint64_t h = 0;
	pid_t pid;

	if (!row)
		return;
	mem = map_anon_ptes(LEN, 'o');
	if (pipe(go) || pipe(back))
		bail("pipe");
	scn_warm(&before);
	if (cs->when == PIN_BEFORE_FORK) {
		ret = cowpin_reg(fd, mem, LEN, cs->flags, &h);
		if (ret) {
			scn_ok(false, "%s: register: %s", cs->name, strerror(-ret));
			return;
		}
	}
	pid = fork();
	if (pid < 0)
		bail("fork");
	if (!pid) {
		char c;

		/* No warm-up: its stack writes would be copies in the window. */
		if (!cs->child_alive)
			_exit(0);
		xwrite(back[1], 'r');
		if (xread(go[0]) != 'g')
			_exit(3);
		c = !scn_count_diff(mem, 'o', LEN) ? 'o' : 'n';
		xwrite(back[1], c);
		_exit(0);
	}
	if (cs->child_alive) {
		if (xread(back[0]) != 'r')
			bail("child");
	} else {
		waitpid(pid, NULL, 0);
	}
	if (cs->when == PIN_AFTER_FORK) {
		ret = cowpin_reg(fd, mem, LEN, cs->flags, &h);
		if (ret) {
			scn_ok(false, "%s: register: %s", cs->name, strerror(-ret));
			return;
		}
	}
	/* The CPU writes the first half; the device the second (if it can). */
	memset(mem, 'P', HALF);
	vmstat_read(&after);
	if (cs->flags & COWPIN_F_WRITE) {
		memset(dev, 'D', HALF);
		if (cowpin_dev_write(fd, h, HALF, HALF, dev))
			bail("device write");
	}
	memset(dev, 0, LEN);
	if (cowpin_dev_read(fd, h, 0, HALF, dev))
		bail("device read");
	dev_stale = scn_count_diff(dev, 'P', HALF);
	cpu_stale = (cs->flags & COWPIN_F_WRITE) ?
		    scn_count_diff(mem + HALF, 'D', HALF) : 0;
	if (cs->child_alive) {
		xwrite(go[1], 'g');
		child = xread(back[0]);
		waitpid(pid, NULL, 0);
	}
	outcome = child == 'n' ? "leak" : dev_stale || cpu_stale ? "stale-pin" : "ok";
	scn_end(row, outcome, &before, &after, SLACK,
		"device_sees_cpu=%s cpu_sees_device=%s child=%s",
		dev_stale ? "no" : "yes",
		!(cs->flags & COWPIN_F_WRITE) ? "n/a" : cpu_stale ? "no" : "yes",
		child == 'o' ? "old" : child == 'n' ? "new" : "exited");
	cowpin_dereg(fd, h);
	close(go[0]); close(go[1]); close(back[0]); close(back[1]);
	munmap(mem, LEN);
}

static const struct cs cases[] = {
	{ "rdma-fork-child-exits", COWPIN_F_WRITE | COWPIN_F_LONGTERM, PIN_BEFORE_FORK, false },
	{ "rdma-fork-child-alive", COWPIN_F_WRITE | COWPIN_F_LONGTERM, PIN_BEFORE_FORK, true },
	{ "rdma-get-fork-child-exits", COWPIN_F_WRITE | COWPIN_F_GET, PIN_BEFORE_FORK, false },
	{ "rdma-get-fork-child-alive", COWPIN_F_WRITE | COWPIN_F_GET, PIN_BEFORE_FORK, true },
	{ "ro-pin-after-fork", COWPIN_F_LONGTERM, PIN_AFTER_FORK, true },
	{ "ro-pin-before-fork", COWPIN_F_LONGTERM, PIN_BEFORE_FORK, true },
};

int main(void)
{
	int fd;

	scn_init("scn_pin_fork");
	fd = cowpin_open();
	if (fd < 0)
		bail("open %s (pin profile)", COWPIN_DEVICE);
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run(fd, &cases[i]);
	close(fd);
	return scn_finish();
}
