/* SPDX-License-Identifier: GPL-2.0 */
/*
 * realwork.h: cowbench's benchmarks of real software (cowbench --real),
 * included by cowbench.c after its timed-section helpers: programs nobody
 * here wrote, run under each policy with fixed work.
 *
 *   sng-<name>  stress-ng 0.15 with one instance of a stressor and a fixed
 *               bogo-op count (--<stressor>-ops); op = bogo op, as stress-ng
 *               counts them (its --yaml metrics); a non-zero exit (a failed
 *               --verify, a stressor error) or no bogo op at all fails the
 *               benchmark. (Not vm-rw: process_vm_readv needs
 *               CONFIG_CROSS_MEMORY_ATTACH, which the lean kernels lack.)
 *   redis-thp<never|always>  Redis 7.0: a dataset of redis_mib MiB (DEBUG
 *               POPULATE, 1 KiB values), then redis-benchmark writes
 *               redis_req SETs over it (4 clients) while a BGSAVE runs; op =
 *               the BGSAVE, its time from the command to the end of the
 *               child. Redis's own figures go out as v.redis_* fields:
 *               fork_us (latest_fork_usec), cow_kib (rdb_last_cow_size),
 *               rps, p50_us, p99_us, max_us (redis-benchmark --csv). THP is
 *               set for the whole sample and Redis is told not to disable
 *               it for itself (disable-thp no).
 *   redis-mthp64  the same with 64 KiB anonymous mTHPs for all memory
 *               (hugepages-64kB/enabled always, PMD THPs off, both restored
 *               after; skipped before 6.8); v.mthp_faults counts the
 *               sample's 64 KiB mTHP faults.
 */

#define REDIS_DIR "/tmp/redisbench"
#define REDIS_SOCK REDIS_DIR "/redis.sock"

static unsigned long redis_mib = 64, redis_req = 20000;

/* Run argv with stdout and stderr to the file out; its exit status, or -1. */
static int run_cmd(char *const argv[], const char *out)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		die("waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The program's output, indented, on stderr: why a run failed. */
static void show_file(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "    %s", line);
	if (f)
		fclose(f);
}

/* "key: value" (YAML) or "key:value" (Redis INFO) in text; -1 if absent. */
static long long field(const char *text, const char *key)
{
	const char *p = text;
	size_t l = strlen(key);

	while ((p = strstr(p, key))) {
		if ((p == text || p[-1] == '\n' || p[-1] == ' ') && p[l] == ':')
			return strtoll(p + l + 1, NULL, 10);
		p += l;
	}
	return -1;
}

static char *slurp(const char *path, char *buf, size_t max)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, max - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

/* b->arg: the stressor's options after "stress-ng", space-separated. */
static const char *b_sng(const struct bench *b, size_t size, int reps,
			 uint64_t *ns, unsigned long *ops, struct acc *acc)
{
	static char yaml[65536];
	char args[256], *argv[32];
	int argc = 0, rc;
	long long bogo;

	(void)size;
	if (access("/usr/bin/stress-ng", X_OK))
		return "no /usr/bin/stress-ng";
	argv[argc++] = "/usr/bin/stress-ng";
	snprintf(args, sizeof(args), "%s", b->arg);
	for (char *t = strtok(args, " "); t && argc < 26; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc++] = "--metrics";
	argv[argc++] = "--yaml";
	argv[argc++] = "/tmp/sng.yaml";
	argv[argc++] = "--temp-path";
	argv[argc++] = "/tmp";
	argv[argc] = NULL;
	for (int i = 0; i < reps; i++) {
		unlink("/tmp/sng.yaml");
		SECTION(rc = run_cmd(argv, "/tmp/sng.out"), 0);
		bogo = field(slurp("/tmp/sng.yaml", yaml, sizeof(yaml)), "bogo-ops");
		if (rc || bogo <= 0) {
			fprintf(stderr, "cowbench: %s: stress-ng %s: exit %d, bogo-ops %lld\n",
				b->name, b->arg, rc, bogo);
			show_file("/tmp/sng.out");
			exit(1);
		}
		*ops += (unsigned long)bogo;
	}
	return NULL;
}

/* ---- a minimal Redis client: inline commands over the unix socket ------ */
static int redis_fd = -1;

static int redis_connect(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", REDIS_SOCK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	redis_fd = fd;
	return 0;
}

/* Send one inline command; the reply (status, error, integer or bulk
 * string, without its framing) into out. 0, or -1 on an error reply. */
static int redis(const char *cmd, char *out, size_t max)
{
	static char buf[1 << 16];
	size_t have = 0, need = 0;
	char *nl;

	if (write(redis_fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd) ||
	    write(redis_fd, "\r\n", 2) != 2)
		die("write to redis");
	for (;;) {
		ssize_t n = read(redis_fd, buf + have, sizeof(buf) - 1 - have);

		if (n <= 0) {
			/* The server went away: its log says why. */
			fprintf(stderr, "cowbench: redis-server %s during \"%s\"\n",
				n ? strerror(errno) : "closed the connection", cmd);
			show_file(REDIS_DIR "/redis.log");
			exit(1);
		}
		have += n;
		buf[have] = 0;
		nl = strstr(buf, "\r\n");
		if (!nl)
			continue;
		if (buf[0] != '$')
			break;
		need = (size_t)(nl - buf) + 2 + strtoul(buf + 1, NULL, 10) + 2;
		if (have >= need || have == sizeof(buf) - 1)
			break;
	}
	if (buf[0] == '$') {
		nl = strstr(buf, "\r\n") + 2;
		snprintf(out, max, "%.*s", (int)(have - (nl - buf)), nl);
	} else {
		snprintf(out, max, "%.*s", (int)(strstr(buf, "\r\n") - buf - 1), buf + 1);
	}
	return buf[0] == '-' ? -1 : 0;
}

static pid_t redis_start(void)
{
	char *argv[] = { "/usr/bin/redis-server", "--port", "0", "--unixsocket",
			 REDIS_SOCK, "--save", "", "--appendonly", "no", "--dir",
			 REDIS_DIR, "--enable-debug-command", "yes", "--disable-thp",
			 "no", "--rdbcompression", "no", "--logfile",
			 REDIS_DIR "/redis.log", NULL };
	pid_t pid;

	mkdir(REDIS_DIR, 0755);
	unlink(REDIS_SOCK);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		execv(argv[0], argv);
		_exit(127);
	}
	for (int i = 0; i < 3000 && redis_connect(); i++)
		usleep(10000);
	if (redis_fd < 0) {
		fprintf(stderr, "cowbench: redis-server did not come up\n");
		show_file(REDIS_DIR "/redis.log");
		exit(1);
	}
	return pid;
}

static void redis_stop(pid_t pid)
{
	static const char cmd[] = "SHUTDOWN NOSAVE\r\n";
	char r[64];

	/* A server that shuts down closes the connection without a reply. */
	if (write(redis_fd, cmd, sizeof(cmd) - 1) != sizeof(cmd) - 1)
		die("write to redis");
	while (read(redis_fd, r, sizeof(r)) > 0)
		;
	close(redis_fd);
	redis_fd = -1;
	if (waitpid(pid, NULL, 0) != pid)
		die("waitpid redis-server");
}

/* redis-benchmark --csv: "SET","rps","avg","min","p50","p95","p99","max" */
static int bench_csv(const char *path, double v[7])
{
	char text[4096], *l;

	slurp(path, text, sizeof(text));
	l = strstr(text, "\"SET\"");
	return l && sscanf(l, "\"SET\",\"%lf\",\"%lf\",\"%lf\",\"%lf\",\"%lf\",\"%lf\",\"%lf\"",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) == 7 ? 0 : -1;
}

static const char *b_redis(const struct bench *b, size_t size, int reps,
			   uint64_t *ns, unsigned long *ops, struct acc *acc)
{
	static char info[1 << 16];
	char cmd[128], r[256], req[32], keys[32], overcommit[16];
	const char *thp = b->arg;
	unsigned long nkeys = redis_mib * 1024;
	char *bargv[] = { "/usr/bin/redis-benchmark", "-s", REDIS_SOCK, "-t", "set",
			  "-n", req, "-r", keys, "-d", "1024", "-c", "4", "--csv", NULL };
	double v[7];

	(void)size;
	if (access("/usr/bin/redis-server", X_OK) || access("/usr/bin/redis-benchmark", X_OK))
		return "no redis-server or redis-benchmark";
	struct mthp_state ms;
	int mthp = !strncmp(thp, "mthp", 4) ? atoi(thp + 4) : 0;
	unsigned long mthp0 = 0;
	const char *skip;

	if (mthp) {
		skip = mthp_on(&ms, mthp, "always");
		if (skip)
			return skip;
		mthp0 = mthp_faults(mthp);
	} else {
		snprintf(cmd, sizeof(cmd), "%s\n", thp);
		if (write_file("/sys/kernel/mm/transparent_hugepage/enabled", cmd))
			return "THP not settable";
	}
	/* As Redis asks, so that the BGSAVE fork cannot fail for want of
	 * overcommit; the setting before is restored after. */
	slurp("/proc/sys/vm/overcommit_memory", overcommit, sizeof(overcommit));
	write_file("/proc/sys/vm/overcommit_memory", "1");
	snprintf(req, sizeof(req), "%lu", redis_req);
	snprintf(keys, sizeof(keys), "%lu", nkeys);
	for (int i = 0; i < reps; i++) {
		pid_t srv, load;
		int st;

		if (mthp)
			mthp0 = mthp_faults(mthp);
		srv = redis_start();

		snprintf(cmd, sizeof(cmd), "DEBUG POPULATE %lu key 1024", nkeys);
		if (redis(cmd, r, sizeof(r)))
			die("DEBUG POPULATE");
		load = fork();
		if (load < 0)
			die("fork");
		if (!load) {
			int fd = open(REDIS_DIR "/bench.csv", O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd < 0 || dup2(fd, 1) < 0)
				_exit(126);
			execv(bargv[0], bargv);
			_exit(127);
		}
		usleep(20000);	/* the clients connected and writing */
		SECTION(if (redis("BGSAVE", r, sizeof(r)))
				die("BGSAVE");
			do {
				usleep(5000);
				redis("INFO persistence", info, sizeof(info));
			} while (field(info, "rdb_bgsave_in_progress") != 0), 1);
		if (waitpid(load, &st, 0) != load || !WIFEXITED(st) || WEXITSTATUS(st) ||
		    bench_csv(REDIS_DIR "/bench.csv", v)) {
			fprintf(stderr, "cowbench: %s: redis-benchmark failed\n", b->name);
			show_file(REDIS_DIR "/bench.csv");
			exit(1);
		}
		if (!strstr(info, "rdb_last_bgsave_status:ok")) {
			fprintf(stderr, "cowbench: %s: BGSAVE failed\n", b->name);
			show_file(REDIS_DIR "/redis.log");
			exit(1);
		}
		acc_put(acc, "redis_cow_kib", field(info, "rdb_last_cow_size") / 1024);
		redis("INFO stats", info, sizeof(info));
		acc_put(acc, "redis_fork_us", field(info, "latest_fork_usec"));
		acc_put(acc, "redis_rps", (long long)v[0]);
		acc_put(acc, "redis_p50_us", (long long)(v[3] * 1000));
		acc_put(acc, "redis_p99_us", (long long)(v[5] * 1000));
		acc_put(acc, "redis_max_us", (long long)(v[6] * 1000));
		if (mthp) {
			unsigned long faults = mthp_faults(mthp) - mthp0;

			if (!faults) {
				fprintf(stderr, "cowbench: %s: no %d KiB mTHP fault: Redis ran on small pages\n",
					b->name, mthp);
				exit(1);
			}
			acc_put(acc, "mthp_faults", (long long)faults);
		}
		redis_stop(srv);
		unlink(REDIS_DIR "/dump.rdb");
	}
	if (mthp)
		mthp_off(&ms);
	else
		write_file("/sys/kernel/mm/transparent_hugepage/enabled", "madvise\n");
	write_file("/proc/sys/vm/overcommit_memory", overcommit);
	return NULL;
}
