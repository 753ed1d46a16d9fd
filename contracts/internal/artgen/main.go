// Command artgen builds the contracts with forge and writes contracts/artifacts/targets.json,
// the call targets of contracts/test/utils/Targets.sol that package contracts/artifacts embeds.
//
// Usage (from contracts/artifacts, as go generate runs it):
//
//	go run ../internal/artgen -root ../.. -out targets.json
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentflightrecorder/afr/contracts/internal/forgeart"
)

func main() {
	root := flag.String("root", ".", "repository root (where foundry.toml is)")
	out := flag.String("out", "contracts/artifacts/targets.json", "file to write")
	flag.Parse()
	if err := run(*root, *out); err != nil {
		fmt.Fprintln(os.Stderr, "artgen:", err)
		os.Exit(1)
	}
}

func run(root, out string) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	if err := forgeart.Build(root, "", ""); err != nil {
		return err
	}
	b, err := forgeart.Targets(filepath.Join(root, "contracts", "out"))
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}
