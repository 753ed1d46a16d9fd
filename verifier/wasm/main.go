//go:build js && wasm

// Command wasm is the light verifier compiled to WebAssembly for the page
// `afr verify-page` writes (verifier/page embeds the build). It registers
// three functions on the page's global object, each a thin wrapper of
// package light, returning a JSON string — on failure {"error": "…"}:
//
//	afrVerifyBundle(bundle Uint8Array, anchorsJSON string, level string)
//	    light.VerifyBundleJSON; level "" picks the strongest the bundle allows
//	afrAnchoredFilter(contract string, operator string)
//	    light.AnchoredFilter: the eth_getLogs filter to send to a node
//	afrAnchorsFromLogs(answer string, contract string, operator string)
//	    light.AnchorsFromLogs: the node's answer as an anchors file
//
// Then it sets afrReady (resolving the page's window.afrReady promise
// through its afrLoaded callback) and blocks forever, so the functions stay
// callable.
package main

import (
	"encoding/json"
	"errors"
	"syscall/js"

	"github.com/agentflightrecorder/afr/verifier/light"
)

var errNoBundle = errors.New("afrVerifyBundle: the first argument must be the bundle's bytes (a Uint8Array)")

// answer returns the JSON of a result, or {"error": …}.
func answer(out string, err error) any {
	if err != nil {
		b, _ := json.Marshal(map[string]string{"error": err.Error()})
		return string(b)
	}
	return out
}

// arg returns argument i as a string, "" when absent or not a string.
func arg(args []js.Value, i int) string {
	if i >= len(args) || args[i].Type() != js.TypeString {
		return ""
	}
	return args[i].String()
}

func main() {
	global := js.Global()
	global.Set("afrVerifyBundle", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 || args[0].Type() != js.TypeObject || args[0].Get("length").Type() != js.TypeNumber {
			return answer("", errNoBundle)
		}
		bundle := make([]byte, args[0].Get("length").Int())
		js.CopyBytesToGo(bundle, args[0])
		return answer(light.VerifyBundleJSON(bundle, []byte(arg(args, 1)), arg(args, 2)))
	}))
	global.Set("afrAnchoredFilter", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return answer(light.AnchoredFilter(arg(args, 0), arg(args, 1)))
	}))
	global.Set("afrAnchorsFromLogs", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return answer(light.AnchorsFromLogs([]byte(arg(args, 0)), arg(args, 1), arg(args, 2)))
	}))
	if cb := global.Get("afrLoaded"); cb.Type() == js.TypeFunction {
		cb.Invoke()
	}
	select {}
}
