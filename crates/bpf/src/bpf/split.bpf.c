// SPDX-License-Identifier: (MIT OR GPL-2.0)
//
// drivelab --latency-split: the kernel's stamps of each I/O, written into the record the I/O's
// io_uring user_data names (see crates/engine/src/split). No ring buffer, no per-event output:
// the job thread reads its own records when it reaps each completion.
//
// Stamps, in the order an I/O meets them (tracepoints only: BTF-typed raw tracepoints, which
// every kernel with BTF has; fentry and kprobes need ftrace features many kernels lack):
//   accept  tp_btf/io_uring_submit_req       io_uring took the SQE
//   punt    tp_btf/io_uring_queue_async_work handed to an io-wq worker
//   issue   tp_btf/block_rq_issue            its first block request went to the driver
//   done    tp_btf/block_rq_complete         its last block request completed
//   cqe     tp_btf/io_uring_complete         its completion was posted
//
// A block request is tied to its I/O through its bios, not through the task that submitted
// them, so requests dispatched by another task (a plug flush, blk-throttle's dispatch worker,
// kblockd) still find their I/O: a direct-I/O bio points to its dio (block device: `blkdev_dio`,
// which embeds the first bio; a file system through iomap: `iomap_dio`), the dio to its kiocb,
// and io_uring's kiocb is the first field of its request, whose user_data names the record. The
// bio's end_io function says which dio it is (addresses from /proc/kallsyms, given by drivelab);
// a bio split off another points to it (`bio_chain_endio`). Any other bio (buffered I/O's
// writeback or readahead, another process's) names no record and stamps nothing.
//
// Only the kernel structure fields read below are declared, with CO-RE relocations
// (preserve_access_index): libbpf moves them to the running kernel's offsets, so no vmlinux.h
// and no kernel headers are needed to build this.

typedef unsigned long long __u64;
typedef unsigned int __u32;
typedef unsigned short __u16;
typedef unsigned char __u8;
typedef long long __s64;
typedef int __s32;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

// From linux/bpf.h (stable UAPI values).
#define BPF_MAP_TYPE_ARRAY 2
#define BPF_F_MMAPABLE (1U << 10)

#define USER_DATA_MARK 0xD1AB0000ULL
#define MAX_BIOS_PER_RQ 16

struct io_cqe {
	__u64 user_data;
} __attribute__((preserve_access_index));

struct io_kiocb {
	struct io_cqe cqe;
} __attribute__((preserve_access_index));

struct kiocb {
	long long ki_pos;
} __attribute__((preserve_access_index));

struct io_rw {
	struct kiocb kiocb;
} __attribute__((preserve_access_index));

struct bio {
	struct bio *bi_next;
	void *bi_end_io;
	void *bi_private;
} __attribute__((preserve_access_index));

struct blkdev_dio {
	struct kiocb *iocb;
	unsigned int flags;
	struct bio bio;
} __attribute__((preserve_access_index));

struct iomap_dio {
	struct kiocb *iocb;
} __attribute__((preserve_access_index));

struct request {
	unsigned int __data_len;
	struct bio *bio;
} __attribute__((preserve_access_index));

// The layout of drivelab_engine::split::KernelStamps: 64 bytes, one cache line each (the map's
// values start on a page), so the CPU that completes one slot's request never contends for the
// line with the job thread arming the next slot.
struct stamps {
	__u64 seq;
	__u64 accept;
	__u64 punt;
	__u64 issue;
	__u64 done;
	__u64 cqe;
	__u32 rqs;
	__u32 pad;
	__u64 spare;
};

// Who we are, the table's shape, and the end_io functions of the bios this follows (0: not in
// this kernel): set by drivelab in the object's .rodata before the programs load, so the verifier
// knows them as constants (no map lookup per event, the comparisons against immediates).
struct config {
	__u32 tgid;
	__u32 slots_per_job;
	__u32 entries;
	__u32 pad;
	__u64 blkdev_async; // blkdev_bio_end_io_async: the bio is embedded in its blkdev_dio
	__u64 blkdev_multi; // blkdev_bio_end_io: bi_private is the blkdev_dio
	__u64 iomap;        // iomap_dio_bio_end_io: bi_private is the iomap_dio
	__u64 chain;        // bio_chain_endio: bi_private is the bio it was split from
};

const volatile struct config cfg = {};

struct counters {
	__u64 lost;       // a request of one of our I/Os whose record had moved on
	__u64 punts;      // I/Os handed to io-wq
	__u64 sampled;    // I/Os whose programs timed themselves (1 in SAMPLE_EVERY)
	__u64 sampled_ns; // those programs' time, from their clock read to the end
};

// The programs' own cost is timed by themselves on one I/O in 64 (its record's `seq`, which the
// job thread counts up per I/O): a clock read more on those I/Os only. The kernel's run-time
// statistics (BPF_ENABLE_STATS) would time every run of every BPF program on the machine, at
// two clock reads each: a third of the split's cost on drivelab's thread.
#define SAMPLE_EVERY 64

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct stamps);
	__uint(max_entries, 1); // set to jobs x slots before load
} stamps SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct counters);
	__uint(max_entries, 1);
} counters SEC(".maps");

// Linux 6.2+: a pointer the programs hold as a plain number (a bio's `void *bi_private`) made a
// typed, read-only kernel pointer, so its fields are read with plain loads (the JIT's
// exception-handled loads) instead of a bpf_probe_read_kernel call each. Weak: on an older
// kernel libbpf resolves it to 0 and the programs take the helper path (bpf_ksym_exists).
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

static __always_inline struct counters *counts(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&counters, &zero);
}

static __always_inline int sampled(struct stamps *s)
{
	return (s->seq & (SAMPLE_EVERY - 1)) == 0;
}

// A program's run on a sampled I/O took from `since` (its clock read) to now; `io` counts the
// I/O (once per I/O: at its submit).
static __always_inline void timed(__u64 since, int io)
{
	struct counters *n = counts();
	if (!n)
		return;
	if (io)
		__sync_fetch_and_add(&n->sampled, 1);
	__sync_fetch_and_add(&n->sampled_ns, bpf_ktime_get_ns() - since);
}

// The record a user_data names (NULL: not one of ours).
static __always_inline struct stamps *record(__u64 ud)
{
	// The high half: (process id << 10 | job) ^ mark (crates/engine/src/split: user_data_tag).
	__u64 high = (ud >> 32) ^ USER_DATA_MARK;
	if ((high >> 10) != cfg.tgid)
		return 0;
	__u32 job = high & 0x3ff;
	__u32 slot = (__u32)ud;
	if (slot >= cfg.slots_per_job)
		return 0;
	__u64 i = (__u64)job * cfg.slots_per_job + slot;
	if (i >= cfg.entries)
		return 0;
	__u32 idx = (__u32)i;
	return bpf_map_lookup_elem(&stamps, &idx);
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(on_submit, struct io_kiocb *req)
{
	// A BTF-typed argument: a plain (CO-RE relocated) load, no helper call. The record's tag
	// names this process, so another process's SQEs stop here.
	struct stamps *s = record(req->cqe.user_data);
	if (!s)
		return 0;
	__u64 now = bpf_ktime_get_ns();
	s->accept = now;
	if (sampled(s))
		timed(now, 1);
	return 0;
}

SEC("tp_btf/io_uring_queue_async_work")
int BPF_PROG(on_punt, struct io_kiocb *req, int rw)
{
	struct stamps *s = record(req->cqe.user_data);
	if (!s)
		return 0;
	__u64 now = bpf_ktime_get_ns();
	s->punt = now;
	struct counters *n = counts();
	if (n)
		__sync_fetch_and_add(&n->punts, 1);
	if (sampled(s))
		timed(now, 0);
	return 0;
}

// The kiocb a direct-I/O dio serves: `struct blkdev_dio` (a block device's) or `struct
// iomap_dio` (a file system's through iomap).
static __always_inline __u64 dio_iocb(__u64 dio, int blkdev, int cast)
{
	if (cast && blkdev) {
		struct blkdev_dio *d = bpf_rdonly_cast((void *)dio, bpf_core_type_id_kernel(struct blkdev_dio));
		return (__u64)d->iocb;
	}
	if (cast) {
		struct iomap_dio *d = bpf_rdonly_cast((void *)dio, bpf_core_type_id_kernel(struct iomap_dio));
		return (__u64)d->iocb;
	}
	if (blkdev) {
		struct blkdev_dio *d = (void *)dio;
		return (__u64)BPF_CORE_READ(d, iocb);
	}
	struct iomap_dio *d = (void *)dio;
	return (__u64)BPF_CORE_READ(d, iocb);
}

// The io_uring user_data of the I/O a bio belongs to (0: none of io_uring's direct I/O).
// `bio` comes from a BTF-typed request: its own fields are plain loads. What it points to
// through `void *` is read with plain loads through bpf_rdonly_cast where the kernel has it,
// else with bpf_probe_read_kernel (BPF_CORE_READ).
static __always_inline __u64 owner(struct bio *bio)
{
	__u64 end_io = (__u64)bio->bi_end_io;
	void *priv = bio->bi_private;
	__u64 at = (__u64)bio;
	int cast = bpf_ksym_exists(bpf_rdonly_cast);
	if (end_io && end_io == cfg.chain) {
		// Split off the bio in `bi_private`: that one names the I/O.
		at = (__u64)priv;
		if (cast) {
			struct bio *parent = bpf_rdonly_cast(priv, bpf_core_type_id_kernel(struct bio));
			end_io = (__u64)parent->bi_end_io;
			priv = parent->bi_private;
		} else {
			struct bio *parent = priv;
			end_io = (__u64)BPF_CORE_READ(parent, bi_end_io);
			priv = BPF_CORE_READ(parent, bi_private);
		}
	}
	if (!end_io)
		return 0;
	__u64 iocb;
	if (end_io == cfg.blkdev_async)
		iocb = dio_iocb(at - bpf_core_field_offset(struct blkdev_dio, bio), 1, cast);
	else if (end_io == cfg.blkdev_multi)
		iocb = dio_iocb((__u64)priv, 1, cast);
	else if (end_io == cfg.iomap)
		iocb = dio_iocb((__u64)priv, 0, cast);
	else
		return 0;
	if (!iocb)
		return 0;
	// io_uring's kiocb is in its request's command area, at the start of `struct io_rw`.
	__u64 req = iocb - bpf_core_field_offset(struct io_rw, kiocb);
	if (cast) {
		struct io_kiocb *r = bpf_rdonly_cast((void *)req, bpf_core_type_id_kernel(struct io_kiocb));
		return r->cqe.user_data;
	}
	struct io_kiocb *r = (void *)req;
	return BPF_CORE_READ(r, cqe.user_data);
}

// Stamp every I/O a request carries (a merged request carries several).
static __always_inline void stamp_rq(struct request *rq, int issue)
{
	if (!cfg.tgid)
		return;
	struct bio *bio = rq->bio;
	__u64 now = bpf_ktime_get_ns();
	int sample = 0;
	for (int i = 0; i < MAX_BIOS_PER_RQ && bio; i++) {
		__u64 ud = owner(bio);
		struct stamps *s = ud ? record(ud) : 0;
		if (s && s->accept) {
			if (issue) {
				if (!s->issue)
					s->issue = now;
				s->rqs += 1;
			} else {
				s->done = now;
			}
			sample |= sampled(s);
		} else if (s) {
			struct counters *n = counts();
			if (n)
				__sync_fetch_and_add(&n->lost, 1);
		}
		bio = bio->bi_next;
	}
	if (sample)
		timed(now, 0);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(on_issue, struct request *rq)
{
	stamp_rq(rq, 1);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(on_rq_done, struct request *rq, __u8 error, unsigned int nr_bytes)
{
	stamp_rq(rq, 0);
	return 0;
}

// The completion is posted. `req` is the second argument on every kernel since 6.0 (the third
// changed from the CQE's fields to the CQE itself in 6.x), so only it is read. The tracepoint
// declares it `void *`: read through bpf_rdonly_cast where the kernel has it.
SEC("tp_btf/io_uring_complete")
int BPF_PROG(on_cqe, void *ring, void *req)
{
	if (!req || !cfg.tgid)
		return 0;
	__u64 now = bpf_ktime_get_ns();
	__u64 ud;
	if (bpf_ksym_exists(bpf_rdonly_cast)) {
		struct io_kiocb *r = bpf_rdonly_cast(req, bpf_core_type_id_kernel(struct io_kiocb));
		ud = r->cqe.user_data;
	} else {
		struct io_kiocb *r = req;
		ud = BPF_CORE_READ(r, cqe.user_data);
	}
	struct stamps *s = record(ud);
	if (!s || !s->accept)
		return 0;
	s->cqe = now;
	if (sampled(s))
		timed(now, 0);
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
