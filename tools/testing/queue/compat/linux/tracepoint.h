/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/tracepoint.h> for the userspace build: each event of
 * module/trace/timeq.h becomes an empty trace_<event>(), as in a kernel
 * without CONFIG_TRACEPOINTS, and its fields are never compiled.
 */
#include "../compat.h"

#define TP_PROTO(args...)	args
#define TP_ARGS(args...)	args

#define COMPAT_TRACE_STUB(name, proto)					\
	_Pragma("GCC diagnostic push")					\
	_Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")	\
	static inline void trace_##name(proto) { }			\
	_Pragma("GCC diagnostic pop")

#define TRACE_EVENT(name, proto, args, tstruct, assign, print) \
	COMPAT_TRACE_STUB(name, PARAMS(proto))
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT(template, name, proto, args) \
	COMPAT_TRACE_STUB(name, PARAMS(proto))
#define DEFINE_EVENT_PRINT(template, name, proto, args, print) \
	COMPAT_TRACE_STUB(name, PARAMS(proto))
#define PARAMS(args...)		args
#define TRACE_DEFINE_ENUM(x)
