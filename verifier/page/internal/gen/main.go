// Command gen builds what package page embeds: verify.wasm (verifier/wasm
// for GOOS=js GOARCH=wasm, trimmed and stripped, so the build is
// byte-reproducible with one Go release), Go's wasm_exec.js from the same
// release, and toolchain.txt naming that release. Run it with
// `go generate ./verifier/page`; TestEmbeddedUpToDate runs it into a
// temporary directory and compares.
//
// Usage: go run ./internal/gen [-o DIR]   (from verifier/page; DIR defaults to .)
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	out := flag.String("o", ".", "directory to write verify.wasm, wasm_exec.js and toolchain.txt into")
	flag.Parse()
	if err := generate(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func generate(dir string) error {
	goroot, err := goEnv("GOROOT")
	if err != nil {
		return err
	}
	version, err := goEnv("GOVERSION")
	if err != nil {
		return err
	}
	wasmPath, err := filepath.Abs(filepath.Join(dir, "verify.wasm"))
	if err != nil {
		return err
	}
	build := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", wasmPath, "github.com/agentflightrecorder/afr/verifier/wasm")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOFLAGS=", "CGO_ENABLED=0")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("GOOS=js GOARCH=wasm go build ./verifier/wasm: %w", err)
	}
	// lib/wasm since Go 1.24, misc/wasm before.
	js, err := os.ReadFile(filepath.Join(goroot, "lib", "wasm", "wasm_exec.js"))
	if os.IsNotExist(err) {
		js, err = os.ReadFile(filepath.Join(goroot, "misc", "wasm", "wasm_exec.js"))
	}
	if err != nil {
		return fmt.Errorf("wasm_exec.js of %s: %w", version, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "wasm_exec.js"), js, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "toolchain.txt"), []byte(version+"\n"), 0o644)
}

func goEnv(name string) (string, error) {
	var out bytes.Buffer
	cmd := exec.Command("go", "env", name)
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	return strings.TrimSpace(out.String()), nil
}
