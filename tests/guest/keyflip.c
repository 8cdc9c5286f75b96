// SPDX-License-Identifier: GPL-2.0
/*
 * keyflip: flip a static key every few milliseconds while other CPUs take
 * write faults through the code the key patches. It is the probe of the
 * jump-label stall: on a kernel with CONFIG_JUMP_LABEL=y each flip rewrites
 * the key's branch sites with text_poke (int3, then the new instruction);
 * a QEMU whose vCPUs can run a stale translation of a patched page trips
 * over an int3 that no longer belongs to a patch site.
 *
 * Keys (--key):
 *   tracepoint  events/exceptions/page_fault_user/enable in tracefs: the
 *               tracepoint's key and x86's trace_pagefault_key, both
 *               tested on every user page fault; any 6.1 kernel with
 *               CONFIG_TRACEPOINTS (the stock kernel too)
 *   cow_policy  vm.cow_policy between exclusive and refcount: the series'
 *               cow_policy_key until it became an atomic count, which
 *               patches no text (on such a kernel, the probe's control)
 *   auto        cow_policy when the sysctl exists, else tracepoint
 * Workers (--workers, default 2) fork, write every page of a 1 MiB region
 * in parent and child (copy-on-write faults) and exit, in a loop.
 *
 * Options: --seconds N (20), --period-us P (2000), --key K (auto), and
 * /proc/cmdline cowtest.keyflipsec=N overrides --seconds.
 * TAP: the flips done and their rate; the workers' fault passes. A
 * guest that stalls never prints the second point: the run's timeout and
 * the log scan (RCU stall, int3) report it on the host.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cowtest.h"

#define REGION (1UL << 20)
#define TP_ENABLE "/sys/kernel/tracing/events/exceptions/page_fault_user/enable"
#define POLICY "/proc/sys/vm/cow_policy"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/* One worker: fork, both sides write the whole region, until killed. */
static void worker(int fd)
{
	char *p = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long passes = 0, off;

	if (p == MAP_FAILED)
		_exit(2);
	memset(p, 1, REGION);
	for (;;) {
		pid_t c = fork();

		if (c < 0)
			_exit(3);
		if (c == 0) {
			for (off = 0; off < REGION; off += PAGE_SIZE)
				p[off]++;
			_exit(0);
		}
		for (off = 0; off < REGION; off += PAGE_SIZE)
			p[off]++;
		waitpid(c, NULL, 0);
		passes++;
		if (write(fd, &passes, sizeof(passes)) < 0)
			_exit(4);
	}
}

static long cmdline_long(const char *key, long dflt)
{
	char buf[4096], *s;
	int fd = open("/proc/cmdline", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return dflt;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return dflt;
	buf[n] = 0;
	s = strstr(buf, key);
	return s ? strtol(s + strlen(key), NULL, 10) : dflt;
}

int main(int argc, char **argv)
{
	long seconds = 20, period_us = 2000, workers = 2, flips = 0, i;
	const char *key = "auto", *path, *on, *off;
	unsigned long passes[16] = { 0 }, total = 0;
	int pipes[16][2];
	pid_t pids[16];
	double t0, t;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atol(argv[++i]);
		else if (!strcmp(argv[i], "--period-us") && i + 1 < argc)
			period_us = atol(argv[++i]);
		else if (!strcmp(argv[i], "--workers") && i + 1 < argc)
			workers = atol(argv[++i]);
		else if (!strcmp(argv[i], "--key") && i + 1 < argc)
			key = argv[++i];
		else {
			fprintf(stderr, "usage: keyflip [--seconds N] [--period-us P] [--workers W] [--key auto|tracepoint|cow_policy]\n");
			return 2;
		}
	}
	seconds = cmdline_long("cowtest.keyflipsec=", seconds);
	if (workers < 1 || workers > 16 || seconds < 1 || period_us < 100) {
		fprintf(stderr, "keyflip: workers 1..16, seconds >= 1, period >= 100 us\n");
		return 2;
	}
	if (!strcmp(key, "auto"))
		key = access(POLICY, W_OK) == 0 ? "cow_policy" : "tracepoint";
	if (!strcmp(key, "cow_policy")) {
		path = POLICY, on = "refcount", off = "exclusive";
	} else if (!strcmp(key, "tracepoint")) {
		mkdir("/sys/kernel/tracing", 0755);
		if (access(TP_ENABLE, W_OK) && mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) && errno != EBUSY)
			tap_diag("mount tracefs: %s", strerror(errno));
		path = TP_ENABLE, on = "1", off = "0";
	} else {
		fprintf(stderr, "keyflip: unknown key '%s'\n", key);
		return 2;
	}
	tap_plan(2);
	if (write_str(path, off)) {
		tap_result(false, "key %s: cannot write %s: %s", key, path, strerror(errno));
		tap_result(false, "workers # not started");
		return tap_exit();
	}
	for (i = 0; i < workers; i++) {
		if (pipe2(pipes[i], O_NONBLOCK) || (pids[i] = fork()) < 0) {
			perror("keyflip: worker");
			return 1;
		}
		if (pids[i] == 0) {
			close(pipes[i][0]);
			worker(pipes[i][1]);
		}
		close(pipes[i][1]);
	}
	t0 = now();
	for (t = t0; t - t0 < seconds; t = now()) {
		if (write_str(path, flips & 1 ? off : on) == 0)
			flips++;
		usleep(period_us);
		for (i = 0; i < workers; i++) {
			unsigned long v;

			while (read(pipes[i][0], &v, sizeof(v)) == sizeof(v))
				passes[i] = v;
		}
	}
	write_str(path, off);
	for (i = 0; i < workers; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
		total += passes[i];
	}
	printf("# RESULT key=%s flips=%ld seconds=%.1f rate_per_s=%.0f passes=%lu\n",
	       key, flips, t - t0, flips / (t - t0), total);
	tap_result(flips > 0, "key %s flipped %ld times in %.1f s (%.0f per second)",
		   key, flips, t - t0, flips / (t - t0));
	tap_result(total > 0, "%ld workers wrote %lu MiB regions in parent and child", workers, total);
	return tap_exit();
}
