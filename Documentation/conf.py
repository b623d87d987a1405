# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration of timeq's documentation, built by `make htmldocs`
# (tools/testing/htmldocs.sh) into build/htmldocs. The kernel's own Sphinx
# extension, kerneldoc.py, pulls the kernel-doc comments out of the
# sources with scripts/kernel-doc; both come from Debian's
# linux-source-6.12: TIMEQ_SPHINX names the extension's directory, and
# TIMEQ_KSRC that of tools/testing/gates/kernel-src.sh.
import os
import re
import sys

ksrc = os.environ.get('TIMEQ_KSRC')
ext = os.environ.get('TIMEQ_SPHINX')
if not ksrc or not ext:
    sys.exit('conf.py: run by tools/testing/htmldocs.sh (make htmldocs)')
sys.path.insert(0, ext)

top = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
with open(os.path.join(top, 'module', 'main.c')) as main:
    release = re.search(r'^MODULE_VERSION\("(.*)"\);$', main.read(), re.M).group(1)
version = release

project = 'timeq'
author = 'The timeq authors'
copyright = author

extensions = ['kerneldoc']
kerneldoc_bin = os.path.join(ksrc, 'scripts', 'kernel-doc')
kerneldoc_srctree = top
# kernel-doc's own warnings reach stderr, which `make htmldocs` fails on.
kerneldoc_verbosity = 1

primary_domain = 'c'
highlight_language = 'none'
exclude_patterns = ['_build']
# A theme that comes with Sphinx itself, so no other package is needed.
html_theme = 'classic'
html_title = 'timeq %s' % release
