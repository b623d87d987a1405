// SPDX-License-Identifier: GPL-2.0
/*
 * timeq_smoke.ko: for kernels without KUnit, such as Debian's stock ones.
 * Loading it runs a short differential check of the queue against the
 * reference model on every shape of diff_shapes[], with timeq_check()
 * after every step, the same driver as the KUnit suite; it refuses to load
 * (-EINVAL) and says why if anything disagrees. Nothing stays behind: it
 * can be unloaded at once.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>

#include "queue_diff.h"

static unsigned int steps = 2000;
module_param(steps, uint, 0444);
MODULE_PARM_DESC(steps, "operations per shape (default 2000)");

static int __init timeq_smoke_init(void)
{
	unsigned long total = 0;
	unsigned int i, step;
	struct diff *d;
	struct op op;
	int err = 0;
	u64 rng, now;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	for (i = 0; i < diff_nshapes && !err; i++) {
		const struct shape *shape = &diff_shapes[i];

		rng = i;
		now = diff_start_now(i, shape->horizon);
		if (diff_start(d, shape, now)) {
			err = -ENOMEM;
			break;
		}
		for (step = 0; step < steps; step++) {
			diff_generate(d, &rng, i % DIFF_PROFILES, &op);
			if (diff_step(d, &op)) {
				pr_err("shape %s, seed %u, step %u: %s\n",
				       shape->name, i, step, d->why);
				err = -EINVAL;
				break;
			}
		}
		total += d->steps;
		diff_stop(d);
	}
	kfree(d);
	if (!err)
		pr_info("%lu operations over %u shapes agreed with the model\n",
			total, diff_nshapes);
	return err;
}

static void __exit timeq_smoke_exit(void)
{
}

module_init(timeq_smoke_init);
module_exit(timeq_smoke_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("timeq smoke test for kernels without KUnit");
MODULE_IMPORT_NS(TIMEQ);
