# SPDX-License-Identifier: GPL-2.0
#
# awk -v uml=UML.txt -v tcg=TCG.txt -f ratios.awk: timeq_bench's ratios (theirs / timeq's,
# above 1 timeq is faster) from a run in User-Mode Linux and a run under
# qemu TCG, side by side. A file may be
# missing (empty): its columns are "-".
#
# Input lines, as timeq_bench prints them:
#   hold  N=1000   timeq    990 | timerqueue    712 (0.71x) | wheel -
function parse(line, run,   f, n, i, head, k, name) {
	n = split(line, f, / \| /)
	split(f[1], head, / +/)
	k = head[1] " " substr(head[2], 3)
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	ns[run, k] = head[4]
	for (i = 2; i <= n; i++) {
		split(f[i], head, / +/)
		name = head[1]
		if (!(name in peer)) { peer[name] = 1; peers[++np] = name }
		if (match(f[i], /\(([0-9.]+)x\)/))
			ratio[run, k, name] = substr(f[i], RSTART + 1, RLENGTH - 3)
	}
}
function load(file, run,   line) {
	while (file != "" && (getline line < file) > 0)
		if (line ~ /^[a-z]+ +N=[0-9]+ +timeq +[0-9]+/)
			parse(line, run)
}
function cell(run, k, name) {
	return ((run, k, name) in ratio) ? ratio[run, k, name] : "-"
}
BEGIN {
	load(uml, 1)
	load(tcg, 2)
	printf "%-13s %13s", "work N", "timeq ns"
	for (p = 1; p <= np; p++)
		printf " | %-19s", peers[p]
	printf "\n%-13s %13s", "", "UML / TCG"
	for (p = 1; p <= np; p++)
		printf " | %-19s", "UML    TCG"
	printf "\n"
	for (i = 1; i <= nk; i++) {
		k = order[i]
		printf "%-13s %6s %6s", k, ((1, k) in ns) ? ns[1, k] : "-",
			((2, k) in ns) ? ns[2, k] : "-"
		for (p = 1; p <= np; p++)
			printf " | %5s  %5s       ", cell(1, k, peers[p]),
				cell(2, k, peers[p])
		printf "\n"
	}
}
