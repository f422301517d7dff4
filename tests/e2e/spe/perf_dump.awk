# perf report -D's SPE packet lines -> one line per record (ended by END or TS):
# pc op events tot issue xlat va pa ds, addresses as bits 55:0 in hex (perf -D prints those)
function reset() { pc = op = ev = tot = iss = xl = va = pa = ds = "-" }
BEGIN { reset() }
/^\.  [0-9a-f]+:  / {
	d = $0
	sub(/^\.  [0-9a-f]+:  ([0-9a-f][0-9a-f] )+ */, "", d)
	n = split(d, w, " ")
	if (w[1] == "PC") { pc = w[2]; sub(/^0x/, "", pc) }
	else if (w[1] == "LAT" && w[3] == "TOT") tot = w[2]
	else if (w[1] == "LAT" && w[3] == "ISSUE") iss = w[2]
	else if (w[1] == "LAT" && w[3] == "XLAT") xl = w[2]
	else if (w[1] == "EV") { ev = w[2]; for (i = 3; i <= n; i++) ev = ev "+" w[i] }
	else if (w[1] == "LD" || w[1] == "ST" || w[1] == "B" || w[1] == "OTHER") op = w[1]
	else if (w[1] == "VA") { va = w[2]; sub(/^0x/, "", va) }
	else if (w[1] == "PA") { pa = w[2]; sub(/^0x/, "", pa) }
	else if (w[1] == "DATA-SOURCE") ds = sprintf("%x", w[2])
	else if (w[1] == "END" || w[1] == "TS") { print pc, op, ev, tot, iss, xl, va, pa, ds; reset() }
}
