# lperf script's SPE lines -> the same tuple as perf_dump.awk (lperf prints kernel addresses
# sign-extended; perf -D prints bits 55:0)
function low56(a) { return length(a) > 14 ? substr(a, length(a) - 13) : a }
BEGIN {
	m["retired"] = "RETIRED"; m["l1d-access"] = "L1D-ACCESS"; m["l1d-refill"] = "L1D-REFILL"
	m["tlb-access"] = "TLB-ACCESS"; m["tlb-walk"] = "TLB-REFILL"; m["mispredicted"] = "MISPRED"
	m["llc-access"] = "LLC-ACCESS"; m["llc-miss"] = "LLC-REFILL"; m["remote-access"] = "REMOTE-ACCESS"
	m["not-taken"] = "NOT-TAKEN"; m["exception-gen"] = "EXCEPTION-GEN"
}
{
	pc = $4; op = ev = tot = iss = xl = va = pa = ds = "-"
	for (i = 5; i <= NF; i++) {
		split($i, kv, "=")
		if (kv[1] == "op") {
			op = kv[2]
			if (op ~ /^LOAD_STORE_ATOMIC-LOAD/) op = "LD"
			else if (op ~ /^LOAD_STORE_ATOMIC-STORE/) op = "ST"
			else if (op ~ /^BRANCH/) op = "B"
			else if (op ~ /^OTHER/) op = "OTHER"
		} else if (kv[1] == "ev") {
			n = split(kv[2], e, "+"); ev = m[e[1]]
			for (j = 2; j <= n; j++) ev = ev "+" m[e[j]]
		} else if (kv[1] == "tot") tot = kv[2]
		else if (kv[1] == "issue") iss = kv[2]
		else if (kv[1] == "xlat") xl = kv[2]
		else if (kv[1] == "va") { va = kv[2]; sub(/^0x/, "", va) }
		else if (kv[1] == "pa") { pa = kv[2]; sub(/^0x/, "", pa) }
		else if (kv[1] == "ds") { ds = kv[2]; sub(/^.*\(/, "", ds); sub(/\)$/, "", ds); sub(/^0x/, "", ds) }
	}
	print low56(pc), op, ev, tot, iss, xl, low56(va), pa, ds
}
