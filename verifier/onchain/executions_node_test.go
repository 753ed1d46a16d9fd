package onchain_test

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/pdr"
	"github.com/agentflightrecorder/afr/verifier"
	"github.com/agentflightrecorder/afr/verifier/onchain"
)

// unfilteringNode answers eth_getLogs with its logs whatever the address
// and topics asked for, as a node that does not filter by them would.
type unfilteringNode struct {
	onchain.ChainReader // nil: the methods the check must not need
	logs                []types.Log
}

func (n unfilteringNode) ChainID(context.Context) (*big.Int, error)   { return big.NewInt(1337), nil }
func (n unfilteringNode) BlockNumber(context.Context) (uint64, error) { return 10, nil }

func (n unfilteringNode) FilterLogs(context.Context, ethereum.FilterQuery) ([]types.Log, error) {
	return n.logs, nil
}

func (n unfilteringNode) HeaderByNumber(context.Context, *big.Int) (*types.Header, error) {
	return &types.Header{Time: 1}, nil
}

// An Executed event of another account that a node returns for the
// account checked is the node's error (*chain.NodeError), never a finding
// against the operator: before, it was read as an execution of the
// account that the log does not hold (exec_after_log, or exec_unrecorded
// once anchored), a false finding.
func TestExecutionsOfAnotherAccount(t *testing.T) {
	account, other := common.HexToAddress("0xacc0"), common.HexToAddress("0x0bad")
	data := make([]byte, 64)
	n := unfilteringNode{logs: []types.Log{{Address: other, BlockNumber: 5,
		Topics: []common.Hash{pdr.ExecutedTopic, common.HexToHash("0x01"), common.HexToHash("0x02")}, Data: data}}}
	x := onchain.Executions{Client: n, Account: account}
	_, fs, err := x.Check(context.Background(), verifier.IndexBundle(&verifier.Bundle{}), &verifier.Report{})
	var ne *chain.NodeError
	if !errors.As(err, &ne) {
		t.Fatalf("findings %+v, error %v; want a *chain.NodeError", fs, err)
	}
}
