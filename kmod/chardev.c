// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/netcoll: each open file is an endpoint (endpoint.c) in the opener's
 * network namespace.  An endpoint binds to one communicator and then runs
 * collectives as blocking, interruptible ioctls on user buffers.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/uaccess.h>

#include "bearer.h"
#include "endpoint.h"
#include "coll.h"
#include "reduce.h"

static int nck_ep_open(struct inode *inode, struct file *file)
{
	struct nck_endpoint *ep;

	ep = nck_ep_create(current->nsproxy->net_ns);
	if (!ep)
		return -ENOMEM;
	file->private_data = ep;
	return stream_open(inode, file);
}

static int nck_ep_release(struct inode *inode, struct file *file)
{
	nck_ep_destroy(file->private_data);
	return 0;
}

/* The module's features; once bound, the communicator's MTU now. */
static long nck_ioc_info(struct nck_endpoint *ep, void __user *arg)
{
	struct nck_comm *c = nck_ep_comm(ep);
	struct netcoll_info info = {
		.abi_version = NETCOLL_ABI_VERSION,
		.wire_version = NETCOLL_WIRE_VERSION,
		.features = NETCOLL_FEAT_BARRIER | NETCOLL_FEAT_ALLTOALL |
			    NETCOLL_FEAT_A2A_SCHED | NETCOLL_FEAT_REDUCE |
			    NETCOLL_FEAT_OWNER | NETCOLL_FEAT_AUTH |
			    NETCOLL_FEAT_COMM_MTU |
			    (nck_reduce_float_supported() ?
			     NETCOLL_FEAT_REDUCE_FLOAT : 0),
		.comm_size_max = NETCOLL_COMM_SIZE_MAX,
		.mtu = c ? nck_comm_mtu(c) : 0,
	};

	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

static long nck_ioc_bind(struct file *file, struct nck_endpoint *ep,
			 void __user *arg)
{
	struct netcoll_bind b;

	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	if (b.flags || b.size)
		return -EINVAL;
	return nck_ep_bind(ep, file, &b, arg);
}

static long nck_ioc_barrier(struct nck_endpoint *ep, struct nck_comm *c,
			    void __user *arg)
{
	struct netcoll_barrier_args a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.flags || a.reserved)
		return -EINVAL;
	return nck_coll_barrier(ep, c, a.timeout_ms);
}

/* One alltoall per endpoint at a time (the transport runs one op). */
static long nck_ioc_alltoall(struct nck_endpoint *ep, struct nck_comm *c,
			     void __user *arg)
{
	struct netcoll_alltoall_args a;
	long err;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (mutex_lock_interruptible(&ep->lock))
		return -EINTR;
	err = nck_coll_alltoall(c, &a);
	mutex_unlock(&ep->lock);
	return err;
}

/*
 * Reductions run in the aggregation engine, which has its own order and
 * limits: one thread can wait while another starts the next operation.
 */
static long nck_ioc_reduce(struct nck_endpoint *ep, struct nck_comm *c,
			   unsigned int cmd, void __user *arg)
{
	struct netcoll_reduce r;
	struct netcoll_wait w;
	int err, unused;
	u32 idx;

	if (cmd == NETCOLL_IOC_WAIT) {
		if (copy_from_user(&w, arg, sizeof(w)))
			return -EFAULT;
		if (w.reserved)
			return -EINVAL;
		return nck_coll_wait(ep, c, w.handle);
	}
	if (copy_from_user(&r, arg, sizeof(r)))
		return -EFAULT;
	err = nck_coll_reduce(ep, c, &r, cmd == NETCOLL_IOC_REDUCE_START);
	if (!err && cmd == NETCOLL_IOC_REDUCE_START &&
	    copy_to_user(arg, &r, sizeof(r))) {
		/* the operation runs; nobody can name it: it is an orphan */
		if (nck_ep_claim(ep, r.handle, &idx, &unused))
			nck_ep_orphan(ep, idx);
		err = -EFAULT;
	}
	return err;
}

static long nck_ep_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct nck_endpoint *ep = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct nck_comm *c;

	switch (cmd) {
	case NETCOLL_IOC_INFO:
		return nck_ioc_info(ep, uarg);
	case NETCOLL_IOC_BIND:
		return nck_ioc_bind(file, ep, uarg);
	case NETCOLL_IOC_BARRIER:
	case NETCOLL_IOC_ALLTOALL:
	case NETCOLL_IOC_REDUCE:
	case NETCOLL_IOC_REDUCE_START:
	case NETCOLL_IOC_WAIT:
		break;
	default:
		return -ENOTTY;
	}
	c = nck_ep_comm(ep);
	if (!c)
		return -ENOTCONN;
	switch (cmd) {
	case NETCOLL_IOC_BARRIER:
		return nck_ioc_barrier(ep, c, uarg);
	case NETCOLL_IOC_ALLTOALL:
		return nck_ioc_alltoall(ep, c, uarg);
	default:
		return nck_ioc_reduce(ep, c, cmd, uarg);
	}
}

static const struct file_operations nck_ep_fops = {
	.owner		= THIS_MODULE,
	.open		= nck_ep_open,
	.release	= nck_ep_release,
	.unlocked_ioctl	= nck_ep_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	/* No .llseek: lseek() gets ESPIPE (6.1 and 6.12 alike). */
};

/*
 * A fixed misc minor (unassigned in Documentation/admin-guide/devices.txt)
 * lets the aliases below work: kmod's static nodes create /dev/netcoll at
 * boot, and the first open() loads the module.  If another driver holds
 * the number, the device takes a dynamic one and only that autoload is
 * lost.
 */
#define NCK_MISC_MINOR		249
MODULE_ALIAS_MISCDEV(NCK_MISC_MINOR);
MODULE_ALIAS("devname:" NETCOLL_DEVICE_NAME);

/*
 * Collectives are for unprivileged applications: the file is open to all,
 * and BIND checks who may use which communicator (access.c).
 */
static struct miscdevice nck_miscdev = {
	.minor	= NCK_MISC_MINOR,
	.name	= NETCOLL_DEVICE_NAME,
	.fops	= &nck_ep_fops,
	.mode	= 0666,
};

int nck_chardev_init(void)
{
	int err = misc_register(&nck_miscdev);

	if (err == -EBUSY) {
		pr_info("netcoll: misc minor %d is taken: /dev/%s gets a dynamic one\n",
			NCK_MISC_MINOR, NETCOLL_DEVICE_NAME);
		nck_miscdev.minor = MISC_DYNAMIC_MINOR;
		err = misc_register(&nck_miscdev);
	}
	return err;
}

void nck_chardev_exit(void)
{
	misc_deregister(&nck_miscdev);
}
