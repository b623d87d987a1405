/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stand-in for the kernel's <kunit/test.h>, just big enough to run the
 * KUnit suites of kunit/ in userspace under sanitizers and valgrind: cases,
 * parameterised cases, EXPECT (note and go on) and ASSERT (abort the case,
 * through longjmp where KUnit ends its kthread), and deferred actions, run
 * in reverse when the case ends as in KUnit.
 */
#ifndef TIMEQ_COMPAT_KUNIT_TEST_H
#define TIMEQ_COMPAT_KUNIT_TEST_H

#include <setjmp.h>
#include <stdlib.h>

#include "../compat.h"

#define KUNIT_PARAM_DESC_SIZE	128
#define KUNIT_MAX_ACTIONS	64

typedef void (kunit_action_t)(void *);

struct kunit {
	const char	*name;
	const void	*param_value;
	bool		failed;
	const char	*skip;		/* why it was skipped */
	jmp_buf		abort;
	unsigned int	nactions;
	struct {
		kunit_action_t	*fn;
		void		*ctx;
	} actions[KUNIT_MAX_ACTIONS];
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	const void *(*generate_params)(const void *prev, char *desc);
};

struct kunit_suite {
	const char name[256];
	struct kunit_case *test_cases;
	int (*suite_init)(struct kunit_suite *suite);
	void (*suite_exit)(struct kunit_suite *suite);
};

#define KUNIT_CASE(fn)			{ .run_case = fn, .name = #fn }
#define KUNIT_CASE_SLOW(fn)		KUNIT_CASE(fn)
#define KUNIT_CASE_PARAM(fn, gen)	{ .run_case = fn, .name = #fn, \
					  .generate_params = gen }
/* Attributes change nothing here: every case runs. */
#define KUNIT_CASE_PARAM_ATTR(fn, gen, attr)	KUNIT_CASE_PARAM(fn, gen)

/*
 * Each test file registers its suite before main(), as a module's suites
 * are registered when it loads; a program runs every suite linked in.
 */
#define COMPAT_KUNIT_MAX_SUITES	8
void compat_kunit_register(struct kunit_suite *suite);
#define kunit_test_suite(suite)						\
	static void __attribute__((constructor)) compat_register_##suite(void) \
	{								\
		compat_kunit_register(&(suite));			\
	}

int kunit_add_action_or_reset(struct kunit *test, kunit_action_t *fn, void *ctx);
void kunit_release_action(struct kunit *test, kunit_action_t *fn, void *ctx);
void *kunit_kzalloc(struct kunit *test, size_t size, gfp_t gfp);
void *kunit_kcalloc(struct kunit *test, size_t n, size_t size, gfp_t gfp);
void compat_kunit_fail(struct kunit *test, bool abort, const char *file,
		       int line, const char *fmt, ...) __printf(5, 6);
void compat_kunit_skip(struct kunit *test, const char *why)
	__attribute__((noreturn));
/* Run every case of @suite; @report gets each result. Returns failures. */
unsigned int compat_kunit_run(struct kunit_suite *suite,
			      void (*report)(bool ok, const char *name));
/* Run every suite registered, in order of registration. */
unsigned int compat_kunit_run_all(void (*report)(bool ok, const char *name));

#define COMPAT_KUNIT_CHECK(test, abort, ok, fmt, ...)				\
	do {									\
		if (!(ok))							\
			compat_kunit_fail(test, abort, __FILE__, __LINE__,	\
					  fmt, ##__VA_ARGS__);			\
	} while (0)

#define COMPAT_KUNIT_BINARY(test, abort, a, op, b, ...)			\
	do {									\
		long long a_ = (long long)(a), b_ = (long long)(b);		\
		COMPAT_KUNIT_CHECK(test, abort, a_ op b_,			\
				   "%s " #op " %s: %lld vs %lld " __VA_ARGS__,	\
				   #a, #b, a_, b_);				\
	} while (0)

#define KUNIT_FAIL(t, fmt, ...) \
	compat_kunit_fail(t, false, __FILE__, __LINE__, fmt, ##__VA_ARGS__)
/*
 * Skip the case, reported "ok ... # SKIP" with @fmt, a literal, in a
 * 32-bit build, which makes no stores; a 64-bit build runs every case
 * (CONFIG_SMP is set), so a skip there fails.
 */
#define kunit_skip(t, fmt) compat_kunit_skip(t, fmt)
#define kunit_info(t, fmt, ...) \
	printf("# %s: " fmt, (t)->name, ##__VA_ARGS__)

#define KUNIT_EXPECT_TRUE(t, c)		COMPAT_KUNIT_CHECK(t, false, c, "%s", #c)
#define KUNIT_EXPECT_FALSE(t, c)	COMPAT_KUNIT_CHECK(t, false, !(c), "!%s", #c)
#define KUNIT_ASSERT_TRUE(t, c)		COMPAT_KUNIT_CHECK(t, true, c, "%s", #c)
#define KUNIT_EXPECT_EQ(t, a, b)	COMPAT_KUNIT_BINARY(t, false, a, ==, b)
#define KUNIT_EXPECT_LE(t, a, b)	COMPAT_KUNIT_BINARY(t, false, a, <=, b)
#define KUNIT_EXPECT_LT(t, a, b)	COMPAT_KUNIT_BINARY(t, false, a, <, b)
#define KUNIT_EXPECT_GE(t, a, b)	COMPAT_KUNIT_BINARY(t, false, a, >=, b)
#define KUNIT_EXPECT_GT(t, a, b)	COMPAT_KUNIT_BINARY(t, false, a, >, b)
#define KUNIT_EXPECT_NE(t, a, b)	COMPAT_KUNIT_BINARY(t, false, a, !=, b)
#define KUNIT_ASSERT_LE(t, a, b)	COMPAT_KUNIT_BINARY(t, true, a, <=, b)
#define KUNIT_ASSERT_GT(t, a, b)	COMPAT_KUNIT_BINARY(t, true, a, >, b)
#define KUNIT_ASSERT_FALSE(t, c)	COMPAT_KUNIT_CHECK(t, true, !(c), "!%s", #c)
#define KUNIT_ASSERT_NOT_NULL(t, p)	COMPAT_KUNIT_CHECK(t, true, (p) != NULL, \
							   "%s != NULL", #p)
#define KUNIT_EXPECT_NOT_NULL(t, p)	COMPAT_KUNIT_CHECK(t, false, (p) != NULL, \
							   "%s != NULL", #p)
#define KUNIT_ASSERT_EQ(t, a, b)	COMPAT_KUNIT_BINARY(t, true, a, ==, b)
#define KUNIT_EXPECT_PTR_EQ(t, a, b)	COMPAT_KUNIT_CHECK(t, false, (a) == (b), \
							   "%s == %s", #a, #b)
#define KUNIT_ASSERT_PTR_EQ(t, a, b)	COMPAT_KUNIT_CHECK(t, true, (a) == (b), \
							   "%s == %s", #a, #b)
#define KUNIT_EXPECT_NULL(t, p)		COMPAT_KUNIT_CHECK(t, false, !(p), "!%s", #p)
#define KUNIT_ASSERT_NULL(t, p)		COMPAT_KUNIT_CHECK(t, true, !(p), "!%s", #p)
#define KUNIT_ASSERT_NOT_ERR_OR_NULL(t, p) \
	COMPAT_KUNIT_CHECK(t, true, (p) && !IS_ERR(p), "%s is a pointer", #p)
#define KUNIT_EXPECT_EQ_MSG(t, a, b, fmt, ...) \
	COMPAT_KUNIT_CHECK(t, false, (a) == (b), "%s == %s: " fmt, #a, #b, ##__VA_ARGS__)
#define KUNIT_ASSERT_EQ_MSG(t, a, b, fmt, ...) \
	COMPAT_KUNIT_CHECK(t, true, (a) == (b), "%s == %s: " fmt, #a, #b, ##__VA_ARGS__)
#define KUNIT_EXPECT_NOT_NULL_MSG(t, p, fmt, ...) \
	COMPAT_KUNIT_CHECK(t, false, (p) != NULL, fmt, ##__VA_ARGS__)

#endif /* TIMEQ_COMPAT_KUNIT_TEST_H */
