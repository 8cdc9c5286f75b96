// SPDX-License-Identifier: GPL-2.0
/*
 * cowtest-timeout SECONDS PROGRAM [ARG...]: run PROGRAM, killing it after
 * SECONDS (SIGTERM, then SIGKILL two seconds later); exit with its status,
 * 128 + N when signal N ended it, 124 on a timeout, 127 when it cannot
 * run.  The runner (guest/init.sh) starts every test program with it.
 *
 * Why not busybox timeout: its watcher is a forked copy of busybox that
 * wakes once a second to see whether the program still lives.  Its first
 * wake after the program's exec() writes pages it shared with busybox
 * until then, each a write fault the kernel counts (cow_reuse_refcount:
 * not exclusive, mapped once) in the system-wide cow_* counters the test
 * programs read around their windows: a few stray decisions about one
 * second into every program.  Here the watcher is the parent: it does all
 * its writes before fork() (the stack it will use, the signal handler)
 * and after it only arms alarm() and sleeps in waitpid(), so nothing of
 * it faults while the program runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t expired;

static void on_alarm(int sig)
{
	(void)sig;
	expired++;	/* 1: the time is up; 2: SIGTERM did not end it */
}

/* Write the stack the waiting loop below will use, before fork(). */
static void __attribute__((noinline)) warm_stack(void)
{
	volatile char stack[16 * 1024];

	memset((char *)stack, 0, sizeof(stack));
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	unsigned int secs;
	char *end;
	int st = 0, termed = 0;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: cowtest-timeout SECONDS PROGRAM [ARG...]\n");
		return 127;
	}
	secs = (unsigned int)strtoul(argv[1], &end, 10);
	if (*argv[1] == '\0' || *end != '\0' || secs == 0) {
		fprintf(stderr, "cowtest-timeout: '%s' is not a number of seconds above 0\n",
			argv[1]);
		return 127;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: waitpid() returns EINTR */
	if (sigaction(SIGALRM, &sa, NULL)) {
		perror("cowtest-timeout: sigaction");
		return 127;
	}
	warm_stack();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("cowtest-timeout: fork");
		return 127;
	}
	if (pid == 0) {
		execv(argv[2], argv + 2);
		fprintf(stderr, "cowtest-timeout: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	alarm(secs);
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			perror("cowtest-timeout: waitpid");
			return 127;
		}
		if (expired == 1 && !termed) {
			kill(pid, SIGTERM);
			termed = 1;
			alarm(2);
		} else if (expired >= 2) {
			kill(pid, SIGKILL);
		}
	}
	if (expired)
		return 124;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}
