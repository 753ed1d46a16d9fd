package page_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/verifier/page"
)

// TestEmbeddedUpToDate builds verifier/wasm for GOOS=js GOARCH=wasm as
// go generate does (internal/gen) into a temporary directory — so the
// WebAssembly main compiles — and fails if the committed files differ.
func TestEmbeddedUpToDate(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "./internal/gen", "-o", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./internal/gen: %v\n%s", err, out)
	}
	for _, name := range []string{"toolchain.txt", "wasm_exec.js", "verify.wasm"} {
		fresh, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		committed, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fresh, committed) {
			t.Fatalf("verifier/page/%s is stale (committed for %s, this build is %s): run `go generate ./verifier/page` and commit the result",
				name, bytes.TrimSpace(mustRead(t, "toolchain.txt")), bytes.TrimSpace(mustRead(t, filepath.Join(dir, "toolchain.txt"))))
		}
	}
}

// TestLightInWebAssembly runs verifier/light's tests — every bundle vector,
// the verdicts, the Anchored decoding of node answers — compiled for
// GOOS=js GOARCH=wasm, as the page runs them, under Node.js with Go's
// go_js_wasm_exec (the browser tests run the page itself in Chromium).
func TestLightInWebAssembly(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed (make setup needs it): the WebAssembly build of verifier/light is not run")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	wasmExec := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "go_js_wasm_exec")
	cmd := exec.Command("go", "test", "-count=1", "-exec", wasmExec, "../light")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("GOOS=js GOARCH=wasm go test -exec %s ./verifier/light: %v\n%s", wasmExec, err, out)
	}
	t.Logf("%s", out)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writePage(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	if err := page.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSelfContained: the page loads nothing — no external script, style,
// image or font — and its only URL is the example node URL in a placeholder.
// Go's wasm_exec.js, inlined verbatim, loads nothing either (its one URL is
// in a comment); the page is checked without it, so its JavaScript is not
// mistaken for markup.
func TestSelfContained(t *testing.T) {
	html := writePage(t)
	loader := string(mustRead(t, "wasm_exec.js"))
	if strings.Count(html, loader) != 1 {
		t.Fatal("wasm_exec.js is not inlined verbatim, once")
	}
	for i, line := range strings.Split(loader, "\n") {
		if regexp.MustCompile(`\bfetch\(|\bimport\(|XMLHttpRequest|<script`).MatchString(line) ||
			(strings.Contains(line, "://") && !strings.HasPrefix(strings.TrimSpace(line), "//")) {
			t.Errorf("wasm_exec.js line %d may load something: %s", i+1, line)
		}
	}
	html = strings.Replace(html, loader, "", 1)
	for _, re := range []string{`(?i)\b(src|href|action)\s*=`, `(?i)url\(`, `(?i)@import`, `(?i)<link\b`, `(?i)<iframe\b`, `(?i)import\(`} {
		if loc := regexp.MustCompile(re).FindStringIndex(html); loc != nil {
			t.Errorf("the page loads something (%s): …%s…", re, html[max(0, loc[0]-40):min(len(html), loc[1]+60)])
		}
	}
	urls := regexp.MustCompile(`(?i)https?://[^\s"'<)]*`).FindAllString(html, -1)
	for _, u := range urls {
		if u != "http://127.0.0.1:8545" {
			t.Errorf("the page names the URL %s", u)
		}
	}
	if !strings.Contains(html, `placeholder="http://127.0.0.1:8545"`) {
		t.Error("the node URL field has no example")
	}
}

// TestElements: the inputs and outputs the browser tests drive, the ready
// signal, and Go's loader with its license header.
func TestElements(t *testing.T) {
	html := writePage(t)
	for _, want := range []string{
		`<input type="file" id="bundle">`, `<input type="file" id="anchors">`,
		`id="rpc"`, `id="contract"`, `id="operator"`, `id="fetch-anchors"`, `id="level"`,
		`<section id="verdict">`, `<ul id="findings">`, `<ul id="events">`,
		`window.afrReady = new Promise`, `document.body.dataset.ready = "1"`, `dataset.verdict = res.verdict`, `li.dataset.seq`, `"event"`,
		"// Copyright 2018 The Go Authors. All rights reserved.", "Content-Security-Policy",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	// Bundle contents are attacker-controlled: never parsed as HTML.
	for _, sink := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("} {
		if strings.Contains(html, sink) {
			t.Errorf("the page uses %s", sink)
		}
	}
}

// TestWASMDecodes: the page's inline WebAssembly is the embedded build,
// gzip and base64 undone.
func TestWASMDecodes(t *testing.T) {
	html := writePage(t)
	m := regexp.MustCompile(`<script id="afr-wasm" type="application/octet-stream">([A-Za-z0-9+/=]+)</script>`).FindStringSubmatch(html)
	if m == nil {
		t.Fatal("no inline WebAssembly")
	}
	gz, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(wasm, page.WASM) || !bytes.HasPrefix(wasm, []byte("\x00asm\x01\x00\x00\x00")) {
		t.Fatalf("the inline WebAssembly (%d bytes) is not the embedded module (%d bytes)", len(wasm), len(page.WASM))
	}
	t.Logf("page %d bytes; WebAssembly %d bytes, %d gzip", len(html), len(wasm), len(gz))
}
