// SPDX-License-Identifier: GPL-2.0
/*
 * tbprof: a QEMU TCG plugin that counts the guest instructions each kernel
 * translation block executes, for an instruction profile where the guest
 * has no PMU (QEMU/TCG: perf in the guest attributes nearly every sample to
 * the idle loop).  Built against QEMU's plugin API version 1 (Debian 12's
 * QEMU 7.2 ships the API but not its header or the contrib plugins; the few
 * declarations used are below).
 *
 *   qemu-system-x86_64 ... -plugin tbprof.so,out=FILE[,mark=ADDR]
 *
 * mark: a guest kernel address (e.g. ksys_sync from the guest's
 * /proc/kallsyms; the guests run without KASLR).  Each time the block
 * starting there runs, the counters are snapshotted: the first and second
 * snapshot bound a measured phase (the guest calls sync(1) before and
 * after it).  FILE, written when QEMU exits, has a line per block:
 * "vaddr insns execs execs_at_mark1 execs_at_mark2"; report.py turns it
 * into instructions per kernel function.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *udata);
typedef void (*exec_cb)(unsigned int vcpu, void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  exec_cb cb,
					  enum qemu_plugin_cb_flags flags,
					  void *udata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb,
				    void *udata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* One per distinct block (a block translated again keeps its counter). */
struct block {
	uint64_t vaddr, insns, execs, at_mark[2];
	struct block *next;	/* every block, for the snapshots */
};

#define HASH_BITS	22
#define KERNEL_START	0xffff800000000000ULL

static struct block **table;	/* open addressing, never resized */
static struct block *blocks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char out[4096] = "tbprof.txt";
static uint64_t mark;
static int marks;

static struct block *block_of(uint64_t va, uint64_t insns)
{
	uint64_t h = ((va ^ insns << 56) * 0x9E3779B97F4A7C15ULL) >> (64 - HASH_BITS);
	struct block *b;

	for (;; h = (h + 1) & ((1u << HASH_BITS) - 1)) {
		b = table[h];
		if (!b)
			break;
		if (b->vaddr == va && b->insns == insns)
			return b;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	b->vaddr = va;
	b->insns = insns;
	b->next = blocks;
	blocks = b;
	table[h] = b;
	return b;
}

static void on_mark(unsigned int vcpu, void *udata)
{
	struct block *b;

	if (marks < 2)
		for (b = blocks; b; b = b->next)
			b->at_mark[marks] = b->execs;
	marks++;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t va = qemu_plugin_tb_vaddr(tb);
	struct block *b;

	if (va < KERNEL_START)
		return;
	pthread_mutex_lock(&lock);
	b = block_of(va, qemu_plugin_tb_n_insns(tb));
	pthread_mutex_unlock(&lock);
	if (mark && va == mark)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_mark,
						     QEMU_PLUGIN_CB_NO_REGS, NULL);
	/* inline: no call per block executed (the counts may race on SMP) */
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->execs, 1);
}

static void dump_at_exit(qemu_plugin_id_t id, void *udata)
{
	FILE *f = fopen(out, "w");
	struct block *b;

	if (!f)
		return;
	fprintf(f, "# marks %d\n", marks);
	for (b = blocks; b; b = b->next)
		if (b->execs)
			fprintf(f, "%llx %llu %llu %llu %llu\n",
				(unsigned long long)b->vaddr,
				(unsigned long long)b->insns,
				(unsigned long long)b->execs,
				(unsigned long long)b->at_mark[0],
				(unsigned long long)b->at_mark[1]);
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc,
			char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			snprintf(out, sizeof(out), "%s", argv[i] + 4);
		else if (!strncmp(argv[i], "mark=", 5))
			mark = strtoull(argv[i] + 5, NULL, 16);
	}
	table = calloc(1u << HASH_BITS, sizeof(*table));
	if (!table)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, dump_at_exit, NULL);
	return 0;
}
