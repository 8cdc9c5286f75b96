// SPDX-License-Identifier: GPL-2.0
/*
 * bench-fork: PLACEHOLDER benchmark. The parent fills 16 MiB of anonymous
 * memory, then 5 times: fork, the child writes every page (copy-on-write
 * faults), exits; the parent waits. Prints each time and the median in ms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SIZE (16UL << 20)
#define RUNS 5

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	const char *policy = getenv("COW_POLICY");
	long page = sysconf(_SC_PAGESIZE);
	double t[RUNS];
	char *buf;
	int i;

	buf = mmap(NULL, SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memset(buf, 1, SIZE);
	for (i = 0; i < RUNS; i++) {
		double t0 = now_ms();
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			for (unsigned long off = 0; off < SIZE; off += page)
				buf[off] = 2;
			_exit(0);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "child failed\n");
			return 1;
		}
		t[i] = now_ms() - t0;
		printf("# bench run=%d policy=%s fork+write16MiB_ms=%.3f\n", i,
		       policy ? policy : "?", t[i]);
	}
	qsort(t, RUNS, sizeof(t[0]), cmp);
	printf("# BENCH policy=%s fork+write16MiB median_ms=%.3f (n=%d)\n",
	       policy ? policy : "?", t[RUNS / 2], RUNS);
	return 0;
}
