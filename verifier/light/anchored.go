package light

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentflightrecorder/afr/format"
	"github.com/agentflightrecorder/afr/internal/strictjson"
	"github.com/agentflightrecorder/afr/verifier"
)

// AnchoredTopic is topic 0 of EpochAnchor's event
// Anchored(address indexed operator, bytes32 indexed logId, uint64 indexed
// epoch, bytes32 root, bytes32 prevRoot): the Keccak-256 of its signature.
// A test checks it against the event ID in the contract's ABI.
const AnchoredTopic = "0xa58519225e4f9c8267cd9793b73fec57d8d8f98424e8f206c6d7288d6fe037e7"

// AnchoredFilter returns, as JSON, the eth_getLogs filter object that
// selects the Anchored events of operator for log logID (0x and 64 hex
// digits: format.LogID, see BundleLogID) and for its batch chain (log id
// 0) on the EpochAnchor at contract, from block 0 to the latest: what a
// page sends to a node.
func AnchoredFilter(contract, operator, logID string) (string, error) {
	c, op, id, err := parseQuery(contract, operator, logID)
	if err != nil {
		return "", err
	}
	out, err := json.Marshal(map[string]any{
		"address": "0x" + hex.EncodeToString(c), "fromBlock": "0x0", "toBlock": "latest",
		// The log's events, and those of the operator's batch chain (log id
		// 0): the page does not read batches, but must know there are some.
		"topics": []any{AnchoredTopic, "0x" + hex.EncodeToString(topicOf(op)), []string{"0x" + hex.EncodeToString(id), "0x" + hex.EncodeToString(make([]byte, 32))}},
	})
	return string(out), err
}

// parseQuery checks the contract, operator and log id of a query.
func parseQuery(contract, operator, logID string) (c, op, id []byte, err error) {
	if c, err = parseAddress("EpochAnchor address", contract); err != nil {
		return nil, nil, nil, err
	}
	if op, err = parseAddress("operator address", operator); err != nil {
		return nil, nil, nil, err
	}
	if id, err = hexBytes("log id", logID, 32); err != nil {
		return nil, nil, nil, fmt.Errorf("%w (want 0x and 64 hex digits: the log id afr verify prints)", err)
	}
	if allZero(id) {
		return nil, nil, nil, errors.New("log id 0 is an operator's batch chain, not a log: give the log's id")
	}
	return c, op, id, nil
}

// BundleLogID returns the log id (format.LogID, 0x-hex) of the log a
// disclosure bundle declares itself a part of: what the page filters the
// Anchored events by. The bundle's verification checks that its records
// are that log's.
func BundleLogID(bundle []byte) (string, error) {
	b, err := verifier.DecodeBundle(bundle)
	if err != nil {
		return "", fmt.Errorf("%w (is this a disclosure bundle written by afr disclose?)", err)
	}
	return b.LogID().String(), nil
}

// ErrBatchesUnread is wrapped by AnchorsFromLogs when the operator has
// anchored aggregate batches, which the page does not read.
var ErrBatchesUnread = errors.New("the operator's aggregate batches are not read here")

// rpcLog is a log as eth_getLogs returns it.
type rpcLog struct {
	Address     string   `json:"address"`
	Topics      []string `json:"topics"`
	Data        string   `json:"data"`
	BlockNumber string   `json:"blockNumber"`
	TxHash      string   `json:"transactionHash"`
	Removed     bool     `json:"removed"`
}

// AnchorsFromLogs turns the answer of a node to eth_getLogs with the
// AnchoredFilter of contract, operator and log id — the whole JSON-RPC
// response, or just its result array — into the operator's anchors of that
// log, in the anchors file format (docs/SPEC.md, "Anchors file") that
// VerifyBundleJSON reads. Removed logs are left out. As chain.FilterAnchored
// does, every log is checked against the query: a log of another contract,
// event, operator or log is an error (the node does not filter as asked),
// as is a log whose encoding is not that of Anchored. Anchors in aggregate
// batches are not read here: when the node reports any event of the
// operator's batch chain, the answer is an error wrapping ErrBatchesUnread
// rather than anchors that could hide a second root in a batch (use afr
// verify).
//
// The node is trusted: nothing ties its answer to a block, a receipt or a
// chain, so a dishonest node (or one on a plain-HTTP path) can report
// Anchored events that were never emitted, and a bundle it forged would then
// verify. The page says so beside the verdict and names the node and the
// chain id it reported. Unlike afr verify, the page also does not compare
// the events with the contract's head: a node that hides events makes
// epochs unanchored (an incomplete verdict). For a verdict that does not
// rest on one node, verify with afr verify against a node you run, or give
// the page an anchors file from one.
func AnchorsFromLogs(logsJSON []byte, contract, operator, logID string) (string, error) {
	c, op, id, err := parseQuery(contract, operator, logID)
	if err != nil {
		return "", err
	}
	logs, err := rpcLogs(logsJSON)
	if err != nil {
		return "", err
	}
	anchors := []format.Anchor{}
	zero := "0x" + hex.EncodeToString(make([]byte, 32))
	for i, l := range logs {
		if l.Removed {
			continue
		}
		if len(l.Topics) == 4 && strings.EqualFold(l.Topics[2], zero) {
			// One key may anchor an epoch of this log per log and again in a
			// batch: without the batches, "verified" could hide a fork.
			return "", fmt.Errorf("%w: operator %s also anchors in aggregate batches (tx %s), which this page does not read: a second root for an epoch of this log in a batch cannot be excluded (verify with afr verify, which reads them)",
				ErrBatchesUnread, operator, l.TxHash)
		}
		a, err := decodeAnchored(l, c, op, id)
		if err != nil {
			return "", fmt.Errorf("log %d (tx %s): %w", i, l.TxHash, err)
		}
		anchors = append(anchors, a)
	}
	out, err := json.Marshal(struct {
		Anchors []format.Anchor `json:"anchors"`
	}{anchors})
	return string(out), err
}

// rpcLogs reads a JSON-RPC response or a bare array of logs.
func rpcLogs(b []byte) ([]rpcLog, error) {
	b = strictjson.TrimSpace(b)
	var logs []rpcLog
	if len(b) > 0 && b[0] == '[' {
		if err := strictjson.Unmarshal(b, &logs); err != nil {
			return nil, fmt.Errorf("eth_getLogs answer: %w", err)
		}
		return logs, nil
	}
	var resp struct {
		Result *[]rpcLog `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := strictjson.Unmarshal(b, &resp); err != nil {
		return nil, fmt.Errorf("eth_getLogs answer is not JSON-RPC: %w", err)
	}
	switch {
	case resp.Error != nil:
		return nil, fmt.Errorf("the node refused eth_getLogs: %s (code %d)", resp.Error.Message, resp.Error.Code)
	case resp.Result == nil:
		return nil, errors.New("eth_getLogs answer has neither result nor error: is the URL a JSON-RPC endpoint?")
	}
	return *resp.Result, nil
}

// decodeAnchored decodes one Anchored log of operator op and log id on
// contract c: topics [event, operator, log id, epoch], data root ‖ prevRoot.
func decodeAnchored(l rpcLog, c, op, id []byte) (format.Anchor, error) {
	addr, err := parseAddress("log address", l.Address)
	if err != nil {
		return format.Anchor{}, err
	}
	if len(l.Topics) != 4 || !strings.EqualFold(l.Topics[0], AnchoredTopic) || !bytes.Equal(addr, c) {
		return format.Anchor{}, errors.New("not an Anchored event of the EpochAnchor asked for: the node does not filter as asked (use another node)")
	}
	opTopic, err := hexBytes("operator topic", l.Topics[1], 32)
	if err != nil {
		return format.Anchor{}, err
	}
	if !bytes.Equal(opTopic, topicOf(op)) {
		return format.Anchor{}, errors.New("an Anchored event of another operator: the node does not filter as asked (use another node)")
	}
	logTopic, err := hexBytes("log id topic", l.Topics[2], 32)
	if err != nil {
		return format.Anchor{}, err
	}
	if !bytes.Equal(logTopic, id) {
		return format.Anchor{}, errors.New("an Anchored event of another log: the node does not filter as asked (use another node)")
	}
	epoch, err := hexBytes("epoch topic", l.Topics[3], 32)
	if err != nil {
		return format.Anchor{}, err
	}
	if !allZero(epoch[:24]) {
		return format.Anchor{}, errors.New("epoch topic is not a uint64")
	}
	data, err := hexBytes("data", l.Data, 64)
	if err != nil {
		return format.Anchor{}, err
	}
	block, err := strconv.ParseUint(strings.TrimPrefix(l.BlockNumber, "0x"), 16, 64)
	if err != nil {
		return format.Anchor{}, fmt.Errorf("blockNumber %q: %w", l.BlockNumber, err)
	}
	a := format.Anchor{Source: fmt.Sprintf("chain tx %s block %d", l.TxHash, block)}
	for _, b := range epoch[24:] {
		a.Epoch = a.Epoch<<8 | uint64(b)
	}
	copy(a.Root[:], data[:32])
	copy(a.PrevRoot[:], data[32:])
	return a, nil
}

// topicOf is an address as an indexed topic: left-padded to 32 bytes.
func topicOf(addr []byte) []byte { return append(make([]byte, 12), addr...) }

func parseAddress(what, s string) ([]byte, error) {
	b, err := hexBytes(what, s, 20)
	if err != nil {
		return nil, fmt.Errorf("%w (want 0x and 40 hex digits)", err)
	}
	return b, nil
}

// hexBytes decodes 0x-prefixed hex of exactly n bytes.
func hexBytes(what, s string, n int) ([]byte, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return nil, fmt.Errorf("%s %q: no 0x prefix", what, s)
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", what, s, err)
	}
	if len(b) != n {
		return nil, fmt.Errorf("%s %q: %d bytes, want %d", what, s, len(b), n)
	}
	return b, nil
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}
