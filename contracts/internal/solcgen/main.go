// Command solcgen compiles Solidity test sources with the project's solc
// wrapper (contracts/solc: solc-js behind a native-solc command line),
// resolving @openzeppelin/contracts/ from the repository's node_modules, and
// writes each contract's ABI and bytecode into one JSON file. The evm and
// tracesim packages generate their test contracts with it (see their
// go:generate lines), e.g.:
//
//	go run ../contracts/internal/solcgen -root .. -out testdata/tokens.json testdata/Tokens.sol
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
)

// contract is one compiled contract in the output file.
type contract struct {
	ABI              json.RawMessage `json:"abi"`
	Bytecode         string          `json:"bytecode"`
	DeployedBytecode string          `json:"deployedBytecode"`
}

func main() {
	root := flag.String("root", "..", "repository root (holds contracts/solc and node_modules)")
	out := flag.String("out", "testdata/contracts.json", "output file")
	evmVersion := flag.String("evm-version", "prague", "EVM version to compile for")
	metadata := flag.Bool("metadata", false, "append solc's CBOR metadata (with its IPFS hash) to the bytecode")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "solcgen: no source files")
		os.Exit(2)
	}
	absRoot, err := filepath.Abs(*root)
	if err != nil {
		fatal(err)
	}
	sources := map[string]any{}
	for _, f := range flag.Args() {
		b, err := os.ReadFile(f)
		if err != nil {
			fatal(err)
		}
		sources[filepath.Base(f)] = map[string]string{"content": string(b)}
	}
	settings := map[string]any{
		"remappings": []string{"@openzeppelin/contracts/=node_modules/@openzeppelin/contracts/"},
		"optimizer":  map[string]any{"enabled": true, "runs": 200},
		"evmVersion": *evmVersion,
		"outputSelection": map[string]any{
			"*": map[string]any{"*": []string{"abi", "evm.bytecode.object", "evm.deployedBytecode.object"}},
		},
	}
	if !*metadata {
		settings["metadata"] = map[string]any{"bytecodeHash": "none", "appendCBOR": false}
	}
	input := map[string]any{"language": "Solidity", "sources": sources, "settings": settings}
	in, _ := json.Marshal(input)
	cmd := exec.Command(filepath.Join(absRoot, "contracts", "solc"), "--base-path", absRoot, "--standard-json")
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = os.Stderr
	raw, err := cmd.Output()
	if err != nil {
		fatal(fmt.Errorf("run solc: %w", err))
	}
	var output struct {
		Errors []struct {
			Severity         string `json:"severity"`
			FormattedMessage string `json:"formattedMessage"`
		} `json:"errors"`
		Contracts map[string]map[string]struct {
			ABI json.RawMessage `json:"abi"`
			EVM struct {
				Bytecode         struct{ Object string } `json:"bytecode"`
				DeployedBytecode struct{ Object string } `json:"deployedBytecode"`
			} `json:"evm"`
		} `json:"contracts"`
	}
	if err := json.Unmarshal(raw, &output); err != nil {
		fatal(fmt.Errorf("decode solc output: %w", err))
	}
	failed := false
	for _, e := range output.Errors {
		fmt.Fprint(os.Stderr, e.FormattedMessage)
		if e.Severity == "error" {
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
	result := map[string]contract{}
	files := make([]string, 0, len(output.Contracts))
	for f := range output.Contracts {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		if _, ok := sources[f]; !ok {
			continue // imported library sources: only the test contracts
		}
		for name, c := range output.Contracts[f] {
			result[name] = contract{ABI: c.ABI, Bytecode: "0x" + c.EVM.Bytecode.Object, DeployedBytecode: "0x" + c.EVM.DeployedBytecode.Object}
		}
	}
	enc, err := json.MarshalIndent(result, "", "  ")
	if err != nil {
		fatal(err)
	}
	if err := os.WriteFile(*out, append(enc, '\n'), 0o644); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "solcgen:", err)
	os.Exit(1)
}
