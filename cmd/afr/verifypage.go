package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/agentflightrecorder/afr/verifier/page"
)

func init() {
	register(&command{name: "verify-page", summary: "write the light verifier as one web page, for auditors with only a browser", run: runVerifyPage, usage: `
Usage: afr verify-page -o FILE

Writes the light verifier as a single self-contained HTML file (about 2 MB:
the verifier compiled to WebAssembly, inlined with its loader; nothing is
fetched from the network). An auditor opens it in a browser, drops a
disclosure bundle (afr disclose) and gives the anchored roots — an anchors
file, or a node URL, the EpochAnchor address and the operator, from which
the page reads the Anchored events with eth_getLogs (the node must allow
the page's requests: CORS) — and sees the verdict (verified, tampered or
incomplete), every finding and the disclosed events with the payloads
their keys open. The checks are those of afr verify --bundle, by the same
code; nothing leaves the browser but the eth_getLogs request.

Examples:
  afr verify-page -o verify.html
  afr disclose --log ./afr-log --seq 42 --keys ./afr-log/keys -o event-42.afrb
  afr anchors --log ./afr-log -o anchors.json    # or read them from the chain in the page`})
}

func runVerifyPage(e *env, args []string) error {
	fs := commands["verify-page"].flags(e)
	out := fs.String("o", "", "HTML file to write (required)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError{"-o FILE is required"}
	}
	n, err := writeVerifyPage(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "afr verify-page: %d bytes written to %s; open it in a browser\n", n, *out)
	return nil
}

// writeVerifyPage writes the light verifier's page to path and returns its
// size in bytes.
func writeVerifyPage(path string) (int, error) {
	var b bytes.Buffer
	if err := page.Write(&b); err != nil {
		return 0, err
	}
	return b.Len(), os.WriteFile(path, b.Bytes(), 0o644)
}
