// SPDX-License-Identifier: GPL-2.0
/*
 * pmem_smoke: the pmem profile has an ext2 filesystem mounted -o dax on
 * /mnt/dax (emulated persistent memory): a file there maps MAP_SHARED
 * (writes reach the file) and MAP_PRIVATE (writes stay private), and a
 * program copied there runs.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cowtest.h"

#define DIR	"/mnt/dax"
#define FILE_	DIR "/pmem_smoke.data"
#define PROG	DIR "/pmem_smoke"
#define LEN	(4UL << 20)

static int dax_mounted(void)
{
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/mounts", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, " " DIR " ") && strstr(line, "dax")) {
			line[strcspn(line, "\n")] = 0;
			tap_diag("%s", line);
			found = 1;
		}
	if (f)
		fclose(f);
	return found;
}

static int copy_self(void)
{
	char buf[65536];
	ssize_t n;
	int in = open("/proc/self/exe", O_RDONLY), out;

	out = open(PROG, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (in < 0 || out < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			return -1;
	close(in);
	return close(out);
}

int main(int argc, char **argv)
{
	char *sh, *pr, buf[16];
	int fd, st, bad = 0;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "--child"))
		return 42;
	tap_plan(6);
	tap_result(dax_mounted(), DIR " is mounted with dax");

	fd = open(FILE_, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, LEN))
		bail(FILE_);
	sh = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	pr = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (sh == MAP_FAILED || pr == MAP_FAILED)
		bail("mmap");
	for (unsigned long i = 0; i < LEN; i += PAGE_SIZE)
		sh[i] = 's';
	msync(sh, LEN, MS_SYNC);
	bad = pread(fd, buf, 1, LEN - PAGE_SIZE) != 1 || buf[0] != 's';
	tap_result(!bad, "MAP_SHARED writes reach the file");
	bad = pr[0] != 's' || pr[LEN - PAGE_SIZE] != 's';
	tap_result(!bad, "MAP_PRIVATE sees the file");
	for (unsigned long i = 0; i < LEN; i += PAGE_SIZE)
		pr[i] = 'p';
	bad = pread(fd, buf, 1, 0) != 1 || buf[0] != 's' || sh[0] != 's';
	tap_result(!bad && pr[PAGE_SIZE] == 'p', "MAP_PRIVATE writes stay private");
	munmap(sh, LEN);
	munmap(pr, LEN);
	close(fd);
	unlink(FILE_);

	tap_result(!copy_self(), "copy this program to " PROG);
	pid = fork();
	if (!pid) {
		execl(PROG, PROG, "--child", (char *)NULL);
		_exit(1);
	}
	st = 0;
	waitpid(pid, &st, 0);
	tap_result(WIFEXITED(st) && WEXITSTATUS(st) == 42, "a program on the DAX filesystem runs (status %#x)", st);
	unlink(PROG);
	return tap_exit();
}
