// SPDX-License-Identifier: GPL-2.0
/* The runner behind the <kunit/test.h> stand-in. */
#include "test.h"

int kunit_add_action_or_reset(struct kunit *test, kunit_action_t *fn, void *ctx)
{
	if (test->nactions == KUNIT_MAX_ACTIONS) {
		fn(ctx);
		return -ENOMEM;
	}
	test->actions[test->nactions].fn = fn;
	test->actions[test->nactions].ctx = ctx;
	test->nactions++;
	return 0;
}

void kunit_release_action(struct kunit *test, kunit_action_t *fn, void *ctx)
{
	unsigned int i;

	for (i = test->nactions; i-- > 0; ) {
		if (test->actions[i].fn == fn && test->actions[i].ctx == ctx) {
			memmove(&test->actions[i], &test->actions[i + 1],
				(test->nactions - i - 1) * sizeof(test->actions[0]));
			test->nactions--;
			fn(ctx);
			return;
		}
	}
}

static void compat_kfree_action(void *ptr)
{
	kfree(ptr);
}

void *kunit_kcalloc(struct kunit *test, size_t n, size_t size, gfp_t gfp)
{
	void *ptr = kcalloc(n, size, gfp);

	if (ptr && kunit_add_action_or_reset(test, compat_kfree_action, ptr))
		return NULL;
	return ptr;
}

void *kunit_kzalloc(struct kunit *test, size_t size, gfp_t gfp)
{
	return kunit_kcalloc(test, 1, size, gfp);
}

void compat_kunit_fail(struct kunit *test, bool abort, const char *file,
		       int line, const char *fmt, ...)
{
	va_list args;

	printf("# %s: %s:%d: %s failed: ", test->name, file, line,
	       abort ? "ASSERT" : "EXPECT");
	va_start(args, fmt);
	vprintf(fmt, args);
	va_end(args);
	printf("\n");
	test->failed = true;
	if (abort)
		longjmp(test->abort, 1);
}

void compat_kunit_skip(struct kunit *test, const char *why)
{
	/* CONFIG_SMP is set: a 64-bit build runs every case, or fails. */
	if (BITS_PER_LONG == 64)
		compat_kunit_fail(test, true, __FILE__, __LINE__, "skip: %s", why);
	test->skip = why;
	longjmp(test->abort, 1);
}

/* Run a case; *@skip says why it skipped, if it did. */
static bool compat_kunit_run_case(struct kunit_case *c, const void *param,
				  const char **skip)
{
	static struct kunit test;	/* jmp_buf and actions: not on the stack */
	long before = compat_allocations;

	memset(&test, 0, sizeof(test));
	test.name = c->name;
	test.param_value = param;
	if (!setjmp(test.abort))
		c->run_case(&test);
	while (test.nactions) {
		test.nactions--;
		test.actions[test.nactions].fn(test.actions[test.nactions].ctx);
	}
	if (compat_allocations != before) {
		printf("# %s: %ld allocations leaked\n", c->name,
		       compat_allocations - before);
		test.failed = true;
	}
	*skip = test.skip;
	return !test.failed;
}

static struct kunit_suite *compat_kunit_suites[COMPAT_KUNIT_MAX_SUITES];
static unsigned int compat_kunit_nsuites;

void compat_kunit_register(struct kunit_suite *suite)
{
	if (compat_kunit_nsuites == COMPAT_KUNIT_MAX_SUITES)
		abort();
	compat_kunit_suites[compat_kunit_nsuites++] = suite;
}

/*
 * Is @name in $COMPAT_KUNIT_SKIP, a list of case names split by spaces or
 * commas? A tool that must run the suites on a tree with a known failure
 * (tools/testing/mutate) names that case there.
 */
static bool compat_kunit_skipped(const char *name)
{
	const char *list = getenv("COMPAT_KUNIT_SKIP"), *p;
	size_t len = strlen(name);

	for (p = list; p && (p = strstr(p, name)); p += len)
		if ((p == list || strchr(" ,", p[-1])) && strchr(" ,", p[len]))
			return true;
	return false;
}

unsigned int compat_kunit_run(struct kunit_suite *suite,
			      void (*report)(bool ok, const char *name))
{
	char desc[KUNIT_PARAM_DESC_SIZE], name[512];
	unsigned int failed = 0;
	const char *skip;
	struct kunit_case *c;
	const void *param;
	bool ok;

	if (suite->suite_init && suite->suite_init(suite)) {
		snprintf(name, sizeof(name), "%s.suite_init", suite->name);
		report(false, name);
		return 1;
	}
	for (c = suite->test_cases; c->run_case; c++) {
		if (compat_kunit_skipped(c->name)) {
			snprintf(name, sizeof(name),
				 "%s.%s # SKIP named in COMPAT_KUNIT_SKIP",
				 suite->name, c->name);
			report(true, name);
			continue;
		}
		if (!c->generate_params) {
			ok = compat_kunit_run_case(c, NULL, &skip);
			snprintf(name, sizeof(name), "%s.%s%s%s", suite->name,
				 c->name, skip ? " # SKIP " : "", skip ?: "");
			report(ok, name);
			failed += !ok;
			continue;
		}
		desc[0] = 0;
		for (param = c->generate_params(NULL, desc); param;
		     param = c->generate_params(param, desc)) {
			ok = compat_kunit_run_case(c, param, &skip);
			snprintf(name, sizeof(name), "%s.%s %s%s%s", suite->name,
				 c->name, desc, skip ? " # SKIP " : "",
				 skip ?: "");
			report(ok, name);
			failed += !ok;
		}
	}
	if (suite->suite_exit)
		suite->suite_exit(suite);
	return failed;
}

unsigned int compat_kunit_run_all(void (*report)(bool ok, const char *name))
{
	unsigned int i, failed = 0;

	for (i = 0; i < compat_kunit_nsuites; i++)
		failed += compat_kunit_run(compat_kunit_suites[i], report);
	return failed;
}
