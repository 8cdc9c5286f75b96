// SPDX-License-Identifier: GPL-2.0
/*
 * scn_strace_dax: strace from persistent memory
 * (seed 006: with v5.8's GUP COW break, process_vm_readv() on a private
 * DAX mapping warned in wp_page_copy() and the tracee was killed).
 * Pmem profile (ext2 -o dax on /mnt/dax).  Deterministic.
 *
 * strace-dax  this program copies itself to /mnt/dax and runs
 *     "strace -f /mnt/dax/scn_strace_dax --tracee": the tracee's text is a
 *     private DAX mapping, and it passes strace pointers into a MAP_PRIVATE
 *     mapping of a DAX file (a path and a write() buffer), which strace
 *     reads with process_vm_readv().
 * ptrace-dax  a traced child maps the DAX file privately; the parent reads
 *     it with PTRACE_PEEKDATA and process_vm_readv() (the GUP reads of
 *     seed 006).
 * ptrace-poke-dax (only with --poke, not in any group)  the parent also
 *     writes one word with PTRACE_POKEDATA, a FOLL_FORCE COW of a DAX page
 *     from another process: unpatched 6.1 copies the source from the
 *     *tracer's* address space (__wp_page_copy_user() has no struct page
 *     for a DAX pfn and uses copy_from_user()), warns and zero-fills.
 *     The child must see the word and the rest of its page.
 *
 * Outcome: ok, warning (a new kernel WARNING), killed (tracee killed by a
 * signal), error (wrong data or exit status).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scn.h"

#define DAXDIR	"/mnt/dax"
#define PROG	DAXDIR "/scn_strace_dax"
#define DATA	DAXDIR "/scn_strace_data"
#define MARK	"DAX-PRIVATE-MAPPING-BUFFER"
#define TIMEOUT	60

/* The DAX file: its own path at offset 0, MARK at 256. */
static void make_data(void)
{
	static char page[PAGE_SIZE];
	int fd = open(DATA, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		bail("create %s", DATA);
	memset(page, 0, sizeof(page));
	strcpy(page, DATA);
	strcpy(page + 256, MARK);
	if (write(fd, page, sizeof(page)) != sizeof(page) || fsync(fd))
		bail("write %s", DATA);
	close(fd);
}

static char *map_data(void)
{
	int fd = open(DATA, O_RDONLY);
	char *p;

	if (fd < 0)
		bail("open %s", DATA);
	p = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		bail("mmap %s", DATA);
	close(fd);
	return p;
}

/* --tracee: syscalls whose arguments point into the private DAX mapping. */
static int tracee(void)
{
	char *p = map_data();
	int fd = open("/dev/null", O_WRONLY);

	if (access(p, R_OK))	/* the path string lives in the DAX page */
		return 10;
	if (fd < 0 || write(fd, p + 256, strlen(MARK)) != (ssize_t)strlen(MARK))
		return 11;
	p[1024] = 'w';		/* COW the DAX page into an anonymous one */
	if (write(fd, p + 256, strlen(MARK)) != (ssize_t)strlen(MARK))
		return 12;
	return 0;
}

static int copy_self(void)
{
	static char buf[1 << 16];
	int in = open("/proc/self/exe", O_RDONLY);
	int out = open(PROG, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;

	if (in < 0 || out < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			return -1;
	close(in);
	return close(out);
}

static void strace_dax(void)
{
	const struct scn_row *row = scn_begin("strace-dax");
	int warn0, warn1, status, seen = 0;
	char line[512];
	pid_t pid;
	FILE *f;

	if (!row)
		return;
	if (copy_self())
		bail("copy to %s", PROG);
	warn0 = scn_kmsg_count("WARNING:");
	pid = fork();
	if (pid < 0)
		bail("fork");
	if (!pid) {
		alarm(TIMEOUT);
		execlp("strace", "strace", "-f", "-s", "64", "-o", "/tmp/scn_strace.out",
		       PROG, "--tracee", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	warn1 = scn_kmsg_count("WARNING:");
	f = fopen("/tmp/scn_strace.out", "r");
	while (f && fgets(line, sizeof(line), f)) {
		seen += strstr(line, MARK) != NULL || strstr(line, "access(\"" DATA) != NULL;
		if (strstr(line, "killed by"))
			tap_diag("strace-dax: %s", line);
	}
	if (f)
		fclose(f);
	tap_diag("strace-dax: strace status %#x, %d lines show DAX data", status, seen);
	scn_end(row, warn1 > warn0 ? "warning" :
		WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) >= 128) ? "killed" :
		!WIFEXITED(status) || WEXITSTATUS(status) || seen < 3 ? "error" : "ok",
		NULL, NULL, "strace_exit=%d new_warnings=%d dax_lines=%d",
		WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status),
		warn1 - warn0, seen);
}

static void ptrace_dax(bool poke)
{
	const struct scn_row *row = scn_begin(poke ? "ptrace-poke-dax" : "ptrace-dax");
	struct vmstat before, after;
	char buf[64] = "", *p;
	const char *reader = "process_vm_readv";
	int warn0, warn1, status, bad = 0;
	long word;
	pid_t pid;

	if (!row)
		return;
	p = map_data();
	warn0 = scn_kmsg_count("WARNING:");
	pid = fork();
	if (pid < 0)
		bail("fork");
	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(3);
		raise(SIGSTOP);
		/* The parent poked "POKEDAX!" at offset 512 (with --poke). */
		if (poke && memcmp(p + 512, "POKEDAX!", 8))
			_exit(4);
		_exit(memcmp(p, DATA, strlen(DATA)) || memcmp(p + 256, MARK, strlen(MARK)) ? 5 : 0);
	}
	waitpid(pid, &status, 0);
	if (!WIFSTOPPED(status))
		bail("tracee did not stop");
	scn_warm(&before);
	errno = 0;
	word = ptrace(PTRACE_PEEKDATA, pid, p + 256, NULL);
	bad += errno || memcmp(&word, MARK, sizeof(word)) ? 1 : 0;
	{
		struct iovec local = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct iovec remote = { .iov_base = p + 256, .iov_len = sizeof(buf) };

		char path[64];
		int fd;

		/* process_vm_readv(), or /proc/pid/mem without CROSS_MEMORY_ATTACH. */
		if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != sizeof(buf)) {
			reader = "/proc/pid/mem";
			snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
			fd = open(path, O_RDONLY);
			if (fd < 0 || pread(fd, buf, sizeof(buf), (uintptr_t)(p + 256)) != sizeof(buf))
				bad += 2;
			if (fd >= 0)
				close(fd);
		}
		bad += memcmp(buf, MARK, strlen(MARK)) ? 2 : 0;
	}
	if (poke) {
		memcpy(&word, "POKEDAX!", sizeof(word));
		bad += ptrace(PTRACE_POKEDATA, pid, p + 512, (void *)word) ? 4 : 0;
	}
	vmstat_read(&after);
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	waitpid(pid, &status, 0);
	warn1 = scn_kmsg_count("WARNING:");
	/* The parent's own private mapping and the file are unchanged. */
	bad += p[512] != 0 ? 8 : 0;
	{
		int fd = open(DATA, O_RDONLY);

		bad += fd < 0 || pread(fd, buf, 8, 512) != 8 || buf[0] != 0 ? 16 : 0;
		close(fd);
	}
	scn_end(row, WIFEXITED(status) && WEXITSTATUS(status) == 5 ? "lost-write" :
		warn1 > warn0 ? "warning" : WIFSIGNALED(status) ? "killed" :
		bad || !WIFEXITED(status) || WEXITSTATUS(status) ? "error" : "ok",
		&before, &after, "bad_mask=%d reader=%s tracee_exit=%d new_warnings=%d", bad, reader,
		WIFEXITED(status) ? WEXITSTATUS(status) : -1, warn1 - warn0);
	munmap(p, PAGE_SIZE);
}

int main(int argc, char **argv)
{
	struct stat st;

	bool poke = argc > 1 && !strcmp(argv[1], "--poke");

	if (argc > 1 && !strcmp(argv[1], "--tracee"))
		return tracee();
	scn_init("scn_strace_dax");
	if (stat(DAXDIR, &st))
		bail("no %s (pmem profile)", DAXDIR);
	make_data();
	strace_dax();
	ptrace_dax(false);
	if (poke)
		ptrace_dax(true);
	unlink(PROG);
	unlink(DATA);
	return scn_finish();
}
