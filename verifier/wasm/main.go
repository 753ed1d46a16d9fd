//go:build js && wasm

// Command wasm is the light verifier compiled to WebAssembly for the page
// `afr verify-page` writes (verifier/page embeds the build). It registers
// four functions on the page's global object, each a thin wrapper of
// package light, returning a JSON string — on failure {"error": "…"}:
//
//	afrVerifyBundle(bundle Uint8Array, anchorsJSON string, level string)
//	    light.VerifyBundleJSON; level "" picks the strongest the bundle allows
//	afrBundleLogID(bundle Uint8Array)
//	    light.BundleLogID: the log id of the bundle, as a JSON string
//	afrAnchoredFilter(contract string, operator string, logID string)
//	    light.AnchoredFilter: the eth_getLogs filter to send to a node
//	afrAnchorsFromLogs(answer string, contract string, operator string, logID string)
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

var errNoBundle = errors.New("the first argument must be the bundle's bytes (a Uint8Array)")

// answer returns the JSON of a result, or {"error": …}.
func answer(out string, err error) any {
	if err != nil {
		b, _ := json.Marshal(map[string]string{"error": err.Error()})
		return string(b)
	}
	return out
}

// bundleArg returns the first argument's bytes (a Uint8Array).
func bundleArg(args []js.Value) ([]byte, error) {
	if len(args) == 0 || args[0].Type() != js.TypeObject || args[0].Get("length").Type() != js.TypeNumber {
		return nil, errNoBundle
	}
	bundle := make([]byte, args[0].Get("length").Int())
	js.CopyBytesToGo(bundle, args[0])
	return bundle, nil
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
		bundle, err := bundleArg(args)
		if err != nil {
			return answer("", err)
		}
		return answer(light.VerifyBundleJSON(bundle, []byte(arg(args, 1)), arg(args, 2)))
	}))
	global.Set("afrBundleLogID", js.FuncOf(func(_ js.Value, args []js.Value) any {
		bundle, err := bundleArg(args)
		if err != nil {
			return answer("", err)
		}
		id, err := light.BundleLogID(bundle)
		if err != nil {
			return answer("", err)
		}
		b, err := json.Marshal(id)
		return answer(string(b), err)
	}))
	global.Set("afrAnchoredFilter", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return answer(light.AnchoredFilter(arg(args, 0), arg(args, 1), arg(args, 2)))
	}))
	global.Set("afrAnchorsFromLogs", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return answer(light.AnchorsFromLogs([]byte(arg(args, 0)), arg(args, 1), arg(args, 2), arg(args, 3)))
	}))
	if cb := global.Get("afrLoaded"); cb.Type() == js.TypeFunction {
		cb.Invoke()
	}
	select {}
}
