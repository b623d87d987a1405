/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace is the test build: everything is visible, nothing is exported. */
#include "../compat.h"
#define VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
