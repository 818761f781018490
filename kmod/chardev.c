// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/netcoll: each open file is an endpoint in the opener's network
 * namespace.  An endpoint binds to one communicator and then runs
 * collectives as blocking, interruptible ioctls on user buffers.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>

#include "core.h"

struct nc_endpoint {
	struct net *net;
	struct mutex lock;		/* one operation at a time */
	struct nc_comm *comm;		/* bound communicator, holds a ref */
};

static int nc_ep_open(struct inode *inode, struct file *file)
{
	struct nc_endpoint *ep;

	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return -ENOMEM;
	ep->net = get_net(current->nsproxy->net_ns);
	mutex_init(&ep->lock);
	file->private_data = ep;
	return stream_open(inode, file);
}

static int nc_ep_release(struct inode *inode, struct file *file)
{
	struct nc_endpoint *ep = file->private_data;

	if (ep->comm) {
		atomic_set(&ep->comm->bound, 0);
		nc_comm_put(ep->comm);
	}
	put_net(ep->net);
	mutex_destroy(&ep->lock);
	kfree(ep);
	return 0;
}

static long nc_ep_info(void __user *arg)
{
	struct netcoll_info info = {
		.abi_version = NETCOLL_ABI_VERSION,
		.wire_version = NETCOLL_WIRE_VERSION,
		.features = NETCOLL_FEAT_BARRIER | NETCOLL_FEAT_ALLTOALL |
			    NETCOLL_FEAT_A2A_SCHED | NETCOLL_FEAT_REDUCE |
			    (nc_reduce_float_supported() ?
			     NETCOLL_FEAT_REDUCE_FLOAT : 0),
		.comm_size_max = NETCOLL_COMM_SIZE_MAX,
	};

	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

static long nc_ep_bind(struct nc_endpoint *ep, void __user *arg)
{
	struct netcoll_bind b;
	struct nc_comm *c;

	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	if (b.flags || b.size)
		return -EINVAL;
	if (ep->comm)
		return -EISCONN;
	c = nc_comm_get(nc_net(ep->net), b.comm_id);
	if (!c)
		return -ENOENT;
	if (b.rank != c->rank) {
		nc_comm_put(c);
		return -EINVAL;
	}
	if (atomic_cmpxchg(&c->bound, 0, 1)) {
		nc_comm_put(c);
		return -EBUSY;
	}
	b.size = c->size;
	if (copy_to_user(arg, &b, sizeof(b))) {
		atomic_set(&c->bound, 0);
		nc_comm_put(c);
		return -EFAULT;
	}
	ep->comm = c;
	return 0;
}

static long nc_ep_barrier(struct nc_endpoint *ep, void __user *arg)
{
	struct netcoll_barrier_args a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.flags || a.reserved)
		return -EINVAL;
	return nc_coll_barrier(ep->comm, a.timeout_ms);
}

static long nc_ep_alltoall(struct nc_endpoint *ep, void __user *arg)
{
	struct netcoll_alltoall_args a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return nc_coll_alltoall(ep->comm, &a);
}

/*
 * Reductions run in the aggregation engine, which has its own order and
 * limits: they do not take the endpoint's lock, so one thread can wait
 * while another starts the next operation.
 */
static long nc_ep_reduce(struct nc_endpoint *ep, unsigned int cmd,
			 void __user *arg)
{
	struct nc_comm *c;
	struct netcoll_reduce r;
	struct netcoll_wait w;
	long err;

	mutex_lock(&ep->lock);
	c = ep->comm;
	mutex_unlock(&ep->lock);
	if (!c)
		return -ENOTCONN;

	if (cmd == NETCOLL_IOC_WAIT) {
		if (copy_from_user(&w, arg, sizeof(w)))
			return -EFAULT;
		if (w.reserved)
			return -EINVAL;
		return nc_coll_wait(c, w.handle);
	}
	if (copy_from_user(&r, arg, sizeof(r)))
		return -EFAULT;
	if (cmd == NETCOLL_IOC_REDUCE)
		return nc_coll_reduce(c, &r);
	err = nc_coll_reduce_start(c, &r);
	if (!err && copy_to_user(arg, &r, sizeof(r))) {
		/* the operation runs; without its handle nobody collects it */
		nc_coll_wait(c, r.handle);
		err = -EFAULT;
	}
	return err;
}

static long nc_ep_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct nc_endpoint *ep = file->private_data;
	void __user *uarg = (void __user *)arg;
	long err;

	if (cmd == NETCOLL_IOC_INFO)
		return nc_ep_info(uarg);
	if (cmd == NETCOLL_IOC_REDUCE || cmd == NETCOLL_IOC_REDUCE_START ||
	    cmd == NETCOLL_IOC_WAIT)
		return nc_ep_reduce(ep, cmd, uarg);
	if (cmd != NETCOLL_IOC_BIND && cmd != NETCOLL_IOC_BARRIER &&
	    cmd != NETCOLL_IOC_ALLTOALL)
		return -ENOTTY;

	if (mutex_lock_interruptible(&ep->lock))
		return -EINTR;
	if (cmd == NETCOLL_IOC_BIND)
		err = nc_ep_bind(ep, uarg);
	else if (!ep->comm)
		err = -ENOTCONN;
	else if (cmd == NETCOLL_IOC_BARRIER)
		err = nc_ep_barrier(ep, uarg);
	else
		err = nc_ep_alltoall(ep, uarg);
	mutex_unlock(&ep->lock);
	return err;
}

static const struct file_operations nc_ep_fops = {
	.owner		= THIS_MODULE,
	.open		= nc_ep_open,
	.release	= nc_ep_release,
	.unlocked_ioctl	= nc_ep_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= no_llseek,
};

/* Collectives are for unprivileged applications; configuration is not. */
static struct miscdevice nc_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= NETCOLL_DEVICE_NAME,
	.fops	= &nc_ep_fops,
	.mode	= 0666,
};

int nc_chardev_init(void)
{
	return misc_register(&nc_miscdev);
}

void nc_chardev_exit(void)
{
	misc_deregister(&nc_miscdev);
}
