// SPDX-License-Identifier: GPL-2.0
/*
 * The data structure of timeq.ko, module/queue.c itself, built into
 * timeq_bench.ko as well, so that the benchmark calls the bare __timeq_*
 * operations, which timeq.ko does not export (it exports the locked API).
 * Nothing here is exported either: the two modules' copies never meet.
 */
#include "../../../module/queue.c"
