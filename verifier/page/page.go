// Package page writes the light verifier as one self-contained web page
// (`afr verify-page`): an auditor opens it in a browser, offline, drops a
// disclosure bundle and an anchors file — or reads the anchors from a node
// with eth_getLogs — and sees the verdict, the findings and the disclosed
// events, reached by the same code as `afr verify --bundle` (package
// verifier, through verifier/light, compiled to WebAssembly).
//
// # What is embedded, and how it is kept fresh
//
// The WebAssembly must exist before afr is compiled, so it is generated and
// committed: `go generate ./verifier/page` builds verifier/wasm with
// GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" into verify.wasm,
// copies Go's wasm_exec.js (the loader of that Go release, under its own
// license header) next to it and writes the release's name to
// toolchain.txt. Package page embeds the three files, so `go build ./...`
// on a fresh clone needs no generation step. The build is byte-reproducible
// with one Go release; TestEmbeddedUpToDate regenerates into a temporary
// directory and fails, naming the command, when the committed files differ
// (a change to the verifier or another Go release).
//
// The page holds the WebAssembly gzip-compressed and base64-encoded and
// decompresses it in the browser (DecompressionStream): about 1.9 MB of
// HTML for 5 MB of WebAssembly. It loads nothing from the network; the only
// request it makes is the eth_getLogs call to the node URL the user types.
// Every string from a bundle (attacker-controlled) is rendered as text
// (textContent), never as HTML, and the page's Content-Security-Policy
// allows no script source other than the page itself.
package page

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/base64"
	"io"
	"strings"
)

//go:generate go run ./internal/gen

// WASM is the light verifier for GOOS=js GOARCH=wasm (verifier/wasm).
//
//go:embed verify.wasm
var WASM []byte

// wasmExec is Go's wasm_exec.js, the loader matching WASM.
//
//go:embed wasm_exec.js
var wasmExec string

//go:embed page.html
var template string

// Write writes the page: page.html with wasm_exec.js and the compressed
// WebAssembly inlined.
func Write(w io.Writer) error {
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(WASM); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	_, err = strings.NewReplacer(
		"/*WASM_EXEC_JS*/", wasmExec,
		"WASM_GZIP_BASE64", base64.StdEncoding.EncodeToString(gz.Bytes()),
	).WriteString(w, template)
	return err
}
