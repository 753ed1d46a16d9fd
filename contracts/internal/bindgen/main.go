// Command bindgen builds the contracts with forge and writes each contract's ABI and creation
// bytecode to contracts/abi (<Name>.abi.json, <Name>.bin), the inputs of abigen. It is the
// first `go generate` step of package contracts/bindings; abigen --v2 is the second.
//
// Usage (from contracts/bindings, as go generate runs it):
//
//	go run ../internal/bindgen -root ../.. -out ../abi
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
	out := flag.String("out", "contracts/abi", "directory for <Name>.abi.json and <Name>.bin")
	flag.Parse()
	if err := run(*root, *out); err != nil {
		fmt.Fprintln(os.Stderr, "bindgen:", err)
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
	forgeOut := filepath.Join(root, "contracts", "out")
	for _, name := range forgeart.Contracts {
		a, err := forgeart.Read(forgeOut, name)
		if err != nil {
			return err
		}
		if err := forgeart.Write(out, name, a); err != nil {
			return err
		}
	}
	return nil
}
