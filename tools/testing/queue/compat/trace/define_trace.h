/* SPDX-License-Identifier: GPL-2.0 */
/* <trace/define_trace.h>: the userspace build defines no tracepoint. */
