package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentflightrecorder/afr/chain"
)

func init() {
	register(&command{name: "keys", summary: "print the operator address of key files, or create new operator keys", run: runKeys, usage: `
Usage: afr keys [--json] KEYFILE...
       afr keys new --dir DIR [-n N] [--json]

The first form prints the operator address of each key file: the address
EpochAnchor records as the operator of the key's anchors, which
"afr verify --operator" takes. The second creates N random operator keys as
DIR/operator-I.key (mode 0600; an existing file is never replaced) and
prints their addresses. Fund them before anchoring: on a local chain,
"afr chain --accounts N" creates and funds N dev keys instead.

One key anchors any number of logs: EpochAnchor keeps one head per
(operator, log id), the log id being derived from each log's recorder and
session (docs/SPEC.md, "Log id"). What must stay single is the signer: run
ONE anchoring process per key (one "afr anchor" at a time, or one process
that anchors all the key's logs in aggregated batches). Two processes
signing with one key race for the account's nonces; each log's anchor queue
and its writer lock keep one log consistent, not one key. A fleet therefore
uses one key per anchoring process, not one per log.

Examples:
  afr keys ./devchain/dev-0.key
  afr keys new --dir ./keys -n 3
  afr keys --json ./keys/*.key`})
}

// keyInfo is one line of afr keys' output.
type keyInfo struct {
	File    string `json:"file"`
	Address string `json:"address"`
}

func runKeys(e *env, args []string) error {
	if len(args) > 0 && args[0] == "new" {
		return runKeysNew(e, args[1:])
	}
	fs := commands["keys"].flags(e)
	jsonOut := fs.Bool("json", false, "print a JSON list of {file, address}")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{"name one or more key files (or \"afr keys new --dir DIR\")"}
	}
	var out []keyInfo
	for _, p := range fs.Args() {
		k, err := chain.ReadKey(p)
		if err != nil {
			return err
		}
		out = append(out, keyInfo{File: p, Address: chain.Address(k).Hex()})
	}
	return printKeys(e, out, *jsonOut)
}

func runKeysNew(e *env, args []string) error {
	fs := commands["keys"].flags(e)
	dir := fs.String("dir", "", "directory for the new key files (created if missing; required)")
	n := fs.Int("n", 1, "number of keys to create (1–1000)")
	jsonOut := fs.Bool("json", false, "print a JSON list of {file, address}")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *dir == "":
		return usageError{"new: --dir is required"}
	case *n < 1 || *n > maxDevKeys:
		return usageError{fmt.Sprintf("new: -n %d: want 1 to %d", *n, maxDevKeys)}
	case fs.NArg() > 0:
		return usageError{fmt.Sprintf("new: unexpected argument %q", fs.Arg(0))}
	}
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		return err
	}
	var out []keyInfo
	for i := 0; len(out) < *n; i++ {
		p := filepath.Join(*dir, fmt.Sprintf("operator-%d.key", i))
		k, err := chain.NewKeyFile(p)
		if errors.Is(err, os.ErrExist) {
			continue // keep existing keys: the next free number
		}
		if err != nil {
			return err
		}
		out = append(out, keyInfo{File: p, Address: chain.Address(k).Hex()})
	}
	return printKeys(e, out, *jsonOut)
}

func printKeys(e *env, keys []keyInfo, jsonOut bool) error {
	if jsonOut {
		return writeJSON(e.stdout, keys)
	}
	for _, k := range keys {
		fmt.Fprintf(e.stdout, "%s  %s\n", k.Address, k.File)
	}
	return nil
}
