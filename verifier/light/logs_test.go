package light_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/verifier/light"
)

// TestAnchorsFromLogsInput: answers that are not logs of Anchored events
// are errors naming what is wrong.
func TestAnchorsFromLogsInput(t *testing.T) {
	const contract, operator = "0x5FbDB2315678afecb367f032d93F642f64180aa3", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	opTopic := "0x00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8"
	logID := "0x" + strings.Repeat("ab", 32)
	log := func(epochTopic, data string, removed bool) string {
		return fmt.Sprintf(`{"address":%q,"topics":[%q,%q,%q,%q],"data":%q,"blockNumber":"0x2","transactionHash":"0x01","removed":%v}`,
			contract, light.AnchoredTopic, opTopic, logID, epochTopic, data, removed)
	}
	epoch1 := "0x" + strings.Repeat("0", 63) + "1"
	data := "0x" + strings.Repeat("11", 32) + strings.Repeat("22", 32)
	for name, c := range map[string]struct{ answer, contract, operator, logID, want string }{
		"rpc error":        {`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"query returned more than 10000 results"}}`, contract, operator, logID, "more than 10000"},
		"not json-rpc":     {`<html>`, contract, operator, logID, "not JSON-RPC"},
		"no result":        {`{"jsonrpc":"2.0","id":1}`, contract, operator, logID, "neither result nor error"},
		"bad operator":     {`[]`, contract, "0x1234", logID, "operator address"},
		"bad contract":     {`[]`, "5FbDB2315678afecb367f032d93F642f64180aa3", operator, logID, "no 0x prefix"},
		"bad log id":       {`[]`, contract, operator, "0xabcd", "log id"},
		"batch chain":      {`[]`, contract, operator, "0x" + strings.Repeat("00", 32), "batch chain"},
		"another log":      {"[" + log(epoch1, data, false) + "]", contract, operator, "0x" + strings.Repeat("cd", 32), "another log"},
		"short data":       {"[" + log(epoch1, data[:66], false) + "]", contract, operator, logID, "32 bytes, want 64"},
		"epoch over 2^64":  {"[" + log("0x01"+epoch1[4:], data, false) + "]", contract, operator, logID, "not a uint64"},
		"removed twice":    {"[" + strings.Replace(log(epoch1, data, false), `"removed":false`, `"removed":true,"removed":false`, 1) + "]", contract, operator, logID, `duplicate key "removed"`},
		"folded topics":    {"[" + strings.Replace(log(epoch1, data, false), `"topics":`, `"Topics":[],"topics":`, 1) + "]", contract, operator, logID, "equal under case folding"},
		"removed and kept": {"[" + log(epoch1, "0x", true) + "," + log(epoch1, data, false) + "]", contract, operator, logID, ""},
	} {
		out, err := light.AnchorsFromLogs([]byte(c.answer), c.contract, c.operator, c.logID)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case c.want == "":
			as, err := format.ParseAnchors([]byte(out))
			if err != nil || len(as) != 1 || as[0].Epoch != 1 || as[0].Root != (format.Digest(bytes.Repeat([]byte{0x11}, 32))) ||
				as[0].PrevRoot != format.Digest(bytes.Repeat([]byte{0x22}, 32)) || as[0].Source != "chain tx 0x01 block 2" {
				t.Errorf("%s: %v %+v", name, err, as)
			}
		case err == nil || !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: %v, want an error with %q", name, err, c.want)
		}
	}
}
