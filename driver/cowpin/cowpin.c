// SPDX-License-Identifier: GPL-2.0
/*
 * cowpin: an RDMA-like page-pinning test driver.
 *
 * /dev/cowpin lets a test do with its own memory what an RDMA NIC does with
 * a registered memory region: pin the pages of a user range (long-term,
 * optionally writable, or with plain FOLL_GET references as vmsplice and
 * O_DIRECT do in 6.1), read them ("send"), write them ("receive") and keep
 * writing them from a kernel thread ("concurrent DMA"), all through the
 * kernel's own mapping of the pinned pages, never through the user's page
 * tables. Each open file has its own small table of regions; closing the
 * file releases everything. Pinned pages are charged to mm->pinned_vm and
 * checked against RLIMIT_MEMLOCK like ib_umem_get() does.
 *
 * The ABI is in cowpin.h, the error codes in README.md.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "cowpin.h"

/* The low bits of a handle are the slot, the high bits a per-file serial. */
#define COWPIN_SLOT_BITS	8
#define COWPIN_SLOT_MASK	((1ULL << COWPIN_SLOT_BITS) - 1)

struct cowpin_region {
	u64 handle;
	u64 flags;			/* COWPIN_F_* */
	unsigned long addr;		/* as registered */
	unsigned long len;
	unsigned long npages;
	struct page **pages;
	struct mm_struct *mm;		/* charged for npages of pinned_vm */
	/* The background writer, NULL when it is not running. */
	struct task_struct *writer;
	unsigned long writer_us;
	unsigned long writer_offset;
	u64 seq;			/* last round the writer completed */
};

struct cowpin_file {
	struct mutex lock;		/* protects regions[] and next_serial */
	u64 next_serial;
	struct cowpin_region *regions[COWPIN_MAX_REGIONS];
};

static unsigned long cowpin_first_page(unsigned long addr)
{
	return addr >> PAGE_SHIFT;
}

static unsigned long cowpin_nr_pages(unsigned long addr, unsigned long len)
{
	return ((addr + len - 1) >> PAGE_SHIFT) - cowpin_first_page(addr) + 1;
}

/* Charge npages to mm->pinned_vm, as ib_umem_get() does. */
static int cowpin_account(struct mm_struct *mm, unsigned long npages)
{
	unsigned long lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	u64 new_pinned = atomic64_add_return(npages, &mm->pinned_vm);

	if (new_pinned > lock_limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	return 0;
}

static void cowpin_unaccount(struct mm_struct *mm, unsigned long npages)
{
	atomic64_sub(npages, &mm->pinned_vm);
}

/* Drop n page references taken by cowpin_pin(), dirtying them if asked. */
static void cowpin_put_pages(struct cowpin_region *r, unsigned long n,
			     bool dirty)
{
	unsigned long i;

	if (!(r->flags & COWPIN_F_GET)) {
		unpin_user_pages_dirty_lock(r->pages, n, dirty);
		return;
	}
	for (i = 0; i < n; i++) {
		if (dirty)
			set_page_dirty_lock(r->pages[i]);
		put_page(r->pages[i]);
	}
}

/* Pin (or get) all pages of the region; on failure nothing stays pinned. */
static int cowpin_pin(struct cowpin_region *r)
{
	unsigned long start = cowpin_first_page(r->addr) << PAGE_SHIFT;
	unsigned int gup_flags = 0;
	unsigned long done = 0;
	int ret;

	if (r->flags & COWPIN_F_WRITE)
		gup_flags |= FOLL_WRITE;
	if (r->flags & COWPIN_F_LONGTERM)
		gup_flags |= FOLL_LONGTERM;
	if (r->flags & COWPIN_F_NOFAULT)
		gup_flags |= FOLL_NOFAULT;

	while (done < r->npages) {
		unsigned long addr = start + (done << PAGE_SHIFT);
		int nr = r->npages - done;	/* <= COWPIN_MAX_LEN pages */

		/*
		 * FAST_ONLY: the lockless walk alone, as perf and KVM look up
		 * pages (get_user_page_fast_only()); a page it cannot take
		 * ends the region with EFAULT.
		 */
		if ((r->flags & COWPIN_F_FAST_ONLY) && (r->flags & COWPIN_F_GET))
			ret = get_user_pages_fast_only(addr, nr, gup_flags,
						       r->pages + done);
#ifdef COWPIN_HAVE_PIN_FAST_ONLY
		else if (r->flags & COWPIN_F_FAST_ONLY)
			ret = pin_user_pages_fast_only(addr, nr, gup_flags,
						       r->pages + done);
#else
		/*
		 * No pin_user_pages_fast_only() (present in v6.2, gone by
		 * v6.5; Kbuild looks for it): FOLL_PIN | FOLL_FAST_ONLY has no
		 * exported entry on the 6.12 line, so this mode is refused.
		 */
		else if (r->flags & COWPIN_F_FAST_ONLY)
			ret = -EOPNOTSUPP;
#endif
		else if (r->flags & COWPIN_F_GET)
			ret = get_user_pages_fast(addr, nr, gup_flags,
						  r->pages + done);
		else
			ret = pin_user_pages_fast(addr, nr, gup_flags,
						  r->pages + done);
		if (ret <= 0) {
			cowpin_put_pages(r, done, false);
			return ret ? ret : -EFAULT;
		}
		done += ret;
	}
	return 0;
}

static void cowpin_writer_stop(struct cowpin_region *r)
{
	if (!r->writer)
		return;
	kthread_stop(r->writer);
	put_task_struct(r->writer);
	r->writer = NULL;
}

static void cowpin_region_free(struct cowpin_region *r)
{
	cowpin_writer_stop(r);
	cowpin_put_pages(r, r->npages, r->flags & COWPIN_F_WRITE);
	cowpin_unaccount(r->mm, r->npages);
	mmdrop(r->mm);
	kvfree(r->pages);
	kfree(r);
}

static struct cowpin_region *cowpin_lookup(struct cowpin_file *f, u64 handle)
{
	u64 slot = handle & COWPIN_SLOT_MASK;
	struct cowpin_region *r;

	if (slot >= COWPIN_MAX_REGIONS)
		return NULL;
	r = f->regions[slot];
	if (!r || r->handle != handle)
		return NULL;
	return r;
}

static int cowpin_register(struct cowpin_file *f, struct cowpin_register *arg)
{
	struct cowpin_region *r;
	int slot, ret;

	if (arg->flags & ~COWPIN_F_ALL)
		return -EINVAL;
	/* FOLL_LONGTERM is only for FOLL_PIN (see is_valid_gup_flags()). */
	if ((arg->flags & COWPIN_F_GET) && (arg->flags & COWPIN_F_LONGTERM))
		return -EINVAL;
	/* GUP-fast alone cannot migrate pages out of ZONE_MOVABLE. */
	if ((arg->flags & COWPIN_F_FAST_ONLY) && (arg->flags & COWPIN_F_LONGTERM))
		return -EINVAL;
	if (!arg->len || arg->len > COWPIN_MAX_LEN)
		return -EINVAL;
	if (arg->addr + arg->len < arg->addr)
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(arg->addr), arg->len))
		return -EFAULT;

	for (slot = 0; slot < COWPIN_MAX_REGIONS; slot++)
		if (!f->regions[slot])
			break;
	if (slot == COWPIN_MAX_REGIONS)
		return -ENOSPC;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->flags = arg->flags;
	r->addr = arg->addr;
	r->len = arg->len;
	r->npages = cowpin_nr_pages(r->addr, r->len);
	r->pages = kvmalloc_array(r->npages, sizeof(*r->pages), GFP_KERNEL);
	if (!r->pages) {
		ret = -ENOMEM;
		goto free_region;
	}
	r->mm = current->mm;
	mmgrab(r->mm);
	ret = cowpin_account(r->mm, r->npages);
	if (ret)
		goto drop_mm;
	ret = cowpin_pin(r);
	if (ret)
		goto unaccount;

	r->handle = (++f->next_serial << COWPIN_SLOT_BITS) | slot;
	f->regions[slot] = r;
	arg->handle = r->handle;
	arg->npages = r->npages;
	return 0;

unaccount:
	cowpin_unaccount(r->mm, r->npages);
drop_mm:
	mmdrop(r->mm);
	kvfree(r->pages);
free_region:
	kfree(r);
	return ret;
}

static int cowpin_deregister(struct cowpin_file *f, struct cowpin_handle *arg)
{
	struct cowpin_region *r = cowpin_lookup(f, arg->handle);

	if (!r)
		return -EINVAL;
	f->regions[arg->handle & COWPIN_SLOT_MASK] = NULL;
	cowpin_region_free(r);
	return 0;
}

/*
 * Copy between the pinned pages and a user buffer through the kernel's
 * mapping of the pages. to_pages: the device writes memory (receive);
 * otherwise the device reads memory (send).
 */
static int cowpin_io(struct cowpin_file *f, struct cowpin_io *arg,
		     bool to_pages)
{
	struct cowpin_region *r = cowpin_lookup(f, arg->handle);
	char __user *ubuf = u64_to_user_ptr(arg->buf);
	unsigned long pos, left;

	if (!r)
		return -EINVAL;
	if (!arg->len || arg->offset > r->len || arg->len > r->len - arg->offset)
		return -EINVAL;
	if (to_pages && !(r->flags & COWPIN_F_WRITE))
		return -EACCES;
	if (!access_ok(ubuf, arg->len))
		return -EFAULT;

	pos = offset_in_page(r->addr) + arg->offset;
	left = arg->len;
	while (left) {
		unsigned long off = offset_in_page(pos);
		unsigned long n = min(left, PAGE_SIZE - off);
		struct page *page = r->pages[pos >> PAGE_SHIFT];
		char *kaddr = kmap_local_page(page);
		unsigned long fail;

		if (to_pages) {
			fail = copy_from_user(kaddr + off, ubuf, n);
			flush_dcache_page(page);
		} else {
			fail = copy_to_user(ubuf, kaddr + off, n);
		}
		kunmap_local(kaddr);
		if (fail)
			return -EFAULT;
		ubuf += n;
		pos += n;
		left -= n;
		if (fatal_signal_pending(current))
			return -EINTR;
	}
	return 0;
}

/* The background writer: one round writes seq into every pinned page. */
static int cowpin_writer_fn(void *data)
{
	struct cowpin_region *r = data;
	unsigned long us = r->writer_us;
	u64 seq = 0;

	while (!kthread_should_stop()) {
		unsigned long i;

		seq++;
		for (i = 0; i < r->npages; i++) {
			char *kaddr = kmap_local_page(r->pages[i]);

			WRITE_ONCE(*(u64 *)(kaddr + r->writer_offset), seq);
			kunmap_local(kaddr);
			cond_resched();
		}
		WRITE_ONCE(r->seq, seq);
		usleep_range(us, us + us / 4 + 1);
	}
	return 0;
}

static int cowpin_writer_start(struct cowpin_file *f, struct cowpin_writer *arg)
{
	struct cowpin_region *r = cowpin_lookup(f, arg->handle);
	struct task_struct *t;

	if (!r)
		return -EINVAL;
	if (arg->interval_us < COWPIN_WRITER_MIN_US ||
	    arg->interval_us > COWPIN_WRITER_MAX_US)
		return -EINVAL;
	if (arg->page_offset % sizeof(u64) ||
	    arg->page_offset > PAGE_SIZE - sizeof(u64))
		return -EINVAL;
	if (!(r->flags & COWPIN_F_WRITE))
		return -EACCES;
	if (r->writer)
		return -EBUSY;

	r->writer_us = arg->interval_us;
	r->writer_offset = arg->page_offset;
	r->seq = 0;
	t = kthread_create(cowpin_writer_fn, r, "cowpin-writer/%u",
			   (unsigned int)(arg->handle & COWPIN_SLOT_MASK));
	if (IS_ERR(t))
		return PTR_ERR(t);
	get_task_struct(t);
	r->writer = t;
	wake_up_process(t);
	return 0;
}

static int cowpin_writer_stop_ioctl(struct cowpin_file *f,
				    struct cowpin_writer *arg)
{
	struct cowpin_region *r = cowpin_lookup(f, arg->handle);

	if (!r || !r->writer)
		return -EINVAL;
	cowpin_writer_stop(r);
	arg->seq = r->seq;
	return 0;
}

static long cowpin_ioctl(struct file *file, unsigned int cmd, unsigned long uarg)
{
	struct cowpin_file *f = file->private_data;
	void __user *argp = (void __user *)uarg;
	union {
		struct cowpin_register reg;
		struct cowpin_handle h;
		struct cowpin_io io;
		struct cowpin_writer w;
	} arg;
	unsigned int size = _IOC_SIZE(cmd);
	long ret;

	switch (cmd) {
	case COWPIN_IOC_REGISTER:
	case COWPIN_IOC_DEREGISTER:
	case COWPIN_IOC_DEVICE_READ:
	case COWPIN_IOC_DEVICE_WRITE:
	case COWPIN_IOC_WRITER_START:
	case COWPIN_IOC_WRITER_STOP:
		break;
	default:
		return -ENOTTY;
	}
	if (copy_from_user(&arg, argp, size))
		return -EFAULT;

	mutex_lock(&f->lock);
	switch (cmd) {
	case COWPIN_IOC_REGISTER:
		ret = cowpin_register(f, &arg.reg);
		break;
	case COWPIN_IOC_DEREGISTER:
		ret = cowpin_deregister(f, &arg.h);
		break;
	case COWPIN_IOC_DEVICE_READ:
		ret = cowpin_io(f, &arg.io, false);
		break;
	case COWPIN_IOC_DEVICE_WRITE:
		ret = cowpin_io(f, &arg.io, true);
		break;
	case COWPIN_IOC_WRITER_START:
		ret = cowpin_writer_start(f, &arg.w);
		break;
	default:
		ret = cowpin_writer_stop_ioctl(f, &arg.w);
		break;
	}
	mutex_unlock(&f->lock);

	if (!ret && (_IOC_DIR(cmd) & _IOC_READ) && copy_to_user(argp, &arg, size)) {
		/* A registered region the caller cannot learn about: undo it. */
		if (cmd == COWPIN_IOC_REGISTER) {
			struct cowpin_handle h = { .handle = arg.reg.handle };

			mutex_lock(&f->lock);
			cowpin_deregister(f, &h);
			mutex_unlock(&f->lock);
		}
		ret = -EFAULT;
	}
	return ret;
}

static int cowpin_open(struct inode *inode, struct file *file)
{
	struct cowpin_file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	file->private_data = f;
	return 0;
}

static int cowpin_release(struct inode *inode, struct file *file)
{
	struct cowpin_file *f = file->private_data;
	int i;

	mutex_lock(&f->lock);
	for (i = 0; i < COWPIN_MAX_REGIONS; i++) {
		if (f->regions[i]) {
			cowpin_region_free(f->regions[i]);
			f->regions[i] = NULL;
		}
	}
	mutex_unlock(&f->lock);
	mutex_destroy(&f->lock);
	kfree(f);
	return 0;
}

static const struct file_operations cowpin_fops = {
	.owner		= THIS_MODULE,
	.open		= cowpin_open,
	.release	= cowpin_release,
	.unlocked_ioctl	= cowpin_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice cowpin_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "cowpin",
	.fops	= &cowpin_fops,
};
module_misc_device(cowpin_misc);

MODULE_DESCRIPTION("RDMA-like page-pinning test driver for cow-policy");
MODULE_LICENSE("GPL");
