// SPDX-License-Identifier: GPL-2.0
/*
 * insncount: a QEMU TCG plugin (QEMU 7.2, plugin API version 1) that counts
 * the guest instructions executed at every address between markers, for
 * make bench-insn (scripts/flow/bench.sh with BENCH_INSN=1).
 *
 * A window opens where the translated block at open= starts (the guest
 * kernel's __x64_sys_getppid: cowbench.mark=1 calls getppid() at the start
 * of every timed section) and closes at the one at close= (__x64_sys_getsid:
 * getsid(0) at its end); the counts of all windows are summed.  An open
 * while open starts the window again, a close while closed does nothing, so
 * that another process's getppid() (a shell's, for $PPID) outside the timed
 * sections changes nothing; one inside a section shortens the window, which
 * the report sees as counts below cowbench's own time.  Every instruction
 * gets an inline counter (exact, whatever the block's exits); at exit out=
 * receives
 *
 *   # insncount opens=O closes=C windows=W
 *   <vaddr hex> <executions in windows>
 *
 * one line per address executed in a window (addresses translated more than
 * once are summed), user and kernel alike.
 *
 * Usage: -plugin build/insn/insncount.so,open=0xffffffff81...,close=0x...,out=FILE
 *
 * The plugin API is declared here (the ABI of QEMU 7.2's qemu-plugin.h,
 * QEMU_PLUGIN_VERSION 1) so that no QEMU source is needed to build it.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- QEMU 7.2 plugin ABI ------------------------------------------------ */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  void (*cb)(unsigned int vcpu, void *udata),
					  enum qemu_plugin_cb_flags flags, void *udata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    void (*cb)(qemu_plugin_id_t id, void *udata), void *udata);

/* ---- counters ----------------------------------------------------------- */
/*
 * One slot per translated instruction, in chunks that never move (the
 * translated code adds to &count[i]).  base[] is count[] when the current
 * window opened; sum[] what the closed windows added.
 */
#define CHUNK 65536

struct chunk {
	uint64_t vaddr[CHUNK], count[CHUNK], base[CHUNK], sum[CHUNK];
};

static struct chunk **chunks;
static size_t nslots, nchunks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t open_at, close_at;
static uint64_t opens, closes, windows;
static int in_window;
static const char *out = "insncount.out";

static uint64_t *new_slot(uint64_t vaddr)
{
	struct chunk *c;

	if (nslots == nchunks * CHUNK) {
		chunks = realloc(chunks, (nchunks + 1) * sizeof(*chunks));
		c = calloc(1, sizeof(*c));
		if (!chunks || !c) {
			fprintf(stderr, "insncount: out of memory\n");
			exit(1);
		}
		chunks[nchunks++] = c;
	}
	c = chunks[nslots / CHUNK];
	c->vaddr[nslots % CHUNK] = vaddr;
	return &c->count[nslots++ % CHUNK];
}

/* udata NULL: open (base := count); else close (sum += count - base). */
static void on_mark(unsigned int vcpu, void *udata)
{
	int open = !udata;

	(void)vcpu;
	pthread_mutex_lock(&lock);
	if (open)
		opens++;
	else
		closes++;
	if (open || in_window) {
		for (size_t i = 0; i < nslots; i++) {
			struct chunk *c = chunks[i / CHUNK];
			size_t k = i % CHUNK;

			if (open)
				c->base[k] = c->count[k];
			else
				c->sum[k] += c->count[k] - c->base[k];
		}
		windows += !open;
		in_window = open;
	}
	pthread_mutex_unlock(&lock);
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t *slot = new_slot(qemu_plugin_insn_vaddr(insn));

		/* A slot made inside an open window starts it at 0. */
		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, slot, 1);
	}
	pthread_mutex_unlock(&lock);
	if (qemu_plugin_tb_vaddr(tb) == open_at)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
	else if (qemu_plugin_tb_vaddr(tb) == close_at)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_mark, QEMU_PLUGIN_CB_NO_REGS, &close_at);
}

static int by_vaddr(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static void on_atexit(qemu_plugin_id_t id, void *udata)
{
	uint64_t (*v)[2] = malloc((nslots + 1) * sizeof(*v));
	size_t n = 0;
	FILE *f = fopen(out, "w");

	(void)id;
	(void)udata;
	if (!f || !v) {
		perror(out);
		return;
	}
	for (size_t i = 0; i < nslots; i++) {
		struct chunk *c = chunks[i / CHUNK];
		size_t k = i % CHUNK;

		if (c->sum[k]) {
			v[n][0] = c->vaddr[k];
			v[n++][1] = c->sum[k];
		}
	}
	qsort(v, n, sizeof(*v), by_vaddr);
	fprintf(f, "# insncount opens=%" PRIu64 " closes=%" PRIu64 " windows=%" PRIu64 "\n",
		opens, closes, windows);
	for (size_t i = 0; i < n; i++) {
		uint64_t s = v[i][1];

		while (i + 1 < n && v[i + 1][0] == v[i][0])
			s += v[++i][1];
		fprintf(f, "%" PRIx64 " %" PRIu64 "\n", v[i][0], s);
	}
	fclose(f);
	free(v);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "open=", 5)) {
			open_at = strtoull(argv[i] + 5, NULL, 0);
		} else if (!strncmp(argv[i], "close=", 6)) {
			close_at = strtoull(argv[i] + 6, NULL, 0);
		} else if (!strncmp(argv[i], "out=", 4)) {
			out = argv[i] + 4;
		} else {
			fprintf(stderr, "insncount: unknown argument '%s' (open=ADDR, close=ADDR, out=FILE)\n", argv[i]);
			return -1;
		}
	}
	if (!open_at || !close_at || open_at == close_at) {
		fprintf(stderr, "insncount: open= and close=, two guest addresses, are required\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
	return 0;
}
