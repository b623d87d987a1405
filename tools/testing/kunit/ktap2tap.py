#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# ktap2tap.py KUNIT_DIR LOG [GLOB] - one TAP line a KUnit case, for make
# check's counts, from the kernel log of a kunit.py run (its build
# directory's test.log), parsed by the kernel's own parser: KUNIT_DIR is a
# kernel tree's tools/testing/kunit, whose kunit_parser.py reads the KTAP as
# kunit.py does.
#
#   ok N - kunit <suite>.<case>               a case that passed
#   ok N - kunit <suite>.<case> # SKIP why    skipped, with the test's reason
#   not ok N - kunit <suite>.<case>           failed or crashed; its log
#                                             follows as "# " lines
#   ok N - kunit <suite>.<case> (P params)    a parameterised case, as one;
#                                             a failed one names the params
#   ok N - no kernel complaint                no lockdep, KASAN, BUG, WARNING,
#                                             UBSAN or Oops line in the log
#                                             (as tools/testing/vm/run.sh
#                                             judges a console)
#
# Without GLOB every suite of kunit/ must have run (a suite whose module
# did not register is a failure, not silence); with GLOB, at least one case
# must have. Exits 1 if any line is "not ok".
import os
import re
import sys

if len(sys.argv) not in (3, 4):
	sys.exit('usage: ktap2tap.py KUNIT_DIR LOG [GLOB]')
kunit_dir, log_path = sys.argv[1], sys.argv[2]
glob = sys.argv[3] if len(sys.argv) == 4 else ''
sys.path.insert(0, kunit_dir)
import kunit_printer  # noqa: E402
import kunit_parser  # noqa: E402
from kunit_parser import TestStatus  # noqa: E402

# The parser's own report goes to stderr: stdout is TAP.
kunit_printer.stdout._output = sys.stderr
kunit_printer.stdout._use_color = False

# The suites in kunit/, by their .name.
SUITES = ('timeq_queue', 'timeq_paths')

# The complaints of a kernel log, as tools/testing/vm/run.sh's classify().
COMPLAINT = re.compile(
	r'KASAN|possible recursive locking|inconsistent lock state|'
	r'circular locking dependency|irq lock inversion|suspicious RCU usage|'
	r'held lock freed|bad unlock balance|lock held when returning|'
	r'trying to register non-static key|possible deadlock|'
	r'Kernel panic|Oops|kernel BUG at|general protection fault|'
	r'BUG:|WARNING:|UBSAN:|list_add corruption|list_del corruption|'
	r'detected stall|soft lockup|blocked for more than')
SKIP = re.compile(r'^\s*ok [0-9]+ (- )?(\S+) # SKIP ?(.*)$')

try:
	with open(log_path, errors='backslashreplace') as f:
		lines = f.read().splitlines()
except OSError as e:
	print(f'not ok 1 - kunit: no log ({e}): the kernel did not build or run')
	print('1..1')
	sys.exit(1)

n = 0
failed = 0


def tap(ok, name, diag=()):
	global n, failed
	n += 1
	print(f'{"ok" if ok else "not ok"} {n} - {name}')
	for d in diag:
		print(f'#   {d}')
	if not ok:
		failed += 1


reasons = {}
for line in lines:
	m = SKIP.match(line)
	if m:
		reasons[m.group(2)] = m.group(3).strip()

root = kunit_parser.parse_run_tests(lines)
seen = set()
cases = 0
for suite in root.subtests:
	seen.add(suite.name)
	if not suite.subtests:
		tap(suite.ok_status(), f'kunit {suite.name}: ran no case',
		    suite.log[-20:])
		continue
	for case in suite.subtests:
		cases += 1
		name = f'kunit {suite.name}.{case.name}'
		if case.subtests:
			bad = [p.name for p in case.subtests if not p.ok_status()]
			name += f' ({len(case.subtests)} params)'
			tap(case.ok_status(), name,
			    [f'failed: {p}' for p in bad] + (case.log[-20:] if bad else []))
		elif case.status == TestStatus.SKIPPED:
			n += 1
			print(f'ok {n} - {name} # SKIP {reasons.get(case.name, "")}')
		else:
			tap(case.status == TestStatus.SUCCESS, name,
			    [] if case.status == TestStatus.SUCCESS else case.log[-30:])

if glob:
	if cases == 0:
		tap(False, f'kunit: no case matched {glob}')
else:
	for s in SUITES:
		if s not in seen:
			tap(False, f'kunit {s}: the suite did not run')
if root.counts.errors:
	tap(False, f'kunit: {root.counts.errors} errors parsing the KTAP '
	    '(above, on stderr)')

complaints = [line for line in lines if COMPLAINT.search(line)]
tap(not complaints, 'no kernel complaint (lockdep, KASAN, BUG, WARNING)',
    complaints[:20])
print(f'1..{n}')
sys.exit(1 if failed else 0)
