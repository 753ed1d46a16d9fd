package pdr

import (
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// ExecutedTopic is topic 0 of PaceSmartAccount's Executed event:
// keccak256("Executed(bytes32,bytes32,bytes32,uint256)").
var ExecutedTopic = crypto.Keccak256Hash([]byte("Executed(bytes32,bytes32,bytes32,uint256)"))

// Executed is one call executed by a PaceSmartAccount, as its Executed event records it.
type Executed struct {
	// PDRHash is the EIP-712 digest of the PDR (PDR.Digest).
	PDRHash common.Hash
	// EventID is the recorder event id bound in the PDR.
	EventID  common.Hash
	Target   common.Address
	Selector [4]byte
	Value    *big.Int
	// Success is false when the call reverted (single calls only: a batch reverts instead).
	Success bool
}

// ParseExecuted decodes an Executed log: topics (ExecutedTopic, pdrHash, eventId) and data
// (call, value), where call packs target (bytes 0–19), selector (20–23) and success (24: 0 or 1),
// bytes 25–31 zero. It rejects any other log and any non-canonical call word.
func ParseExecuted(l *types.Log) (*Executed, error) {
	if len(l.Topics) != 3 || l.Topics[0] != ExecutedTopic {
		return nil, errors.New("pdr: not an Executed log")
	}
	if len(l.Data) != 64 {
		return nil, errors.New("pdr: Executed log data is not two words")
	}
	call := l.Data[:32]
	if call[24] > 1 || common.BytesToHash(call[25:]) != (common.Hash{}) {
		return nil, errors.New("pdr: Executed call word has nonzero padding or a success byte above 1")
	}
	e := &Executed{
		PDRHash: l.Topics[1], EventID: l.Topics[2], Target: common.BytesToAddress(call[:20]),
		Selector: [4]byte(call[20:24]), Value: new(big.Int).SetBytes(l.Data[32:]), Success: call[24] == 1,
	}
	return e, nil
}
