# Turns the "conformance-row" lines of evm's TestConformance and the
# "conformance-replay" lines of tracesim's TestConformanceReplay (go test -v
# output, tab-separated) into the Markdown table of docs/CONFORMANCE.md.
# Run by `make conformance-table`.
BEGIN { FS = "\t" }
/conformance-row\t/    { row[$2] = $3 " | " $4 " | " $5 " | " $6 }
/conformance-replay\t/ { rep[$2] = $3 }
END {
	print "| fixture | fork | transaction | exercises | trace | replay |"
	print "|---|---|---|---|---|---|"
	sort = "sort"
	for (n in row) {
		r = (n in rep) ? rep[n] : "not run"
		print "| " n " | " row[n] " | " r " |" | sort
	}
	close(sort)
}
