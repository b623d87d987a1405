/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/timeq (dev.c), registered and removed by the module (main.c). */
#ifndef _TIMEQ_DEV_H
#define _TIMEQ_DEV_H

int tq_dev_init(void);
void tq_dev_exit(void);

#endif /* _TIMEQ_DEV_H */
