package calldata

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/agentflightrecorder/afr/format"
)

// ChainLog returns one emitted log as the recorder's typed effect field:
// the emitter's address, the topics in order and the data (nil when there
// is none, as there are no topics when there are none).
func ChainLog(chainID uint64, addr common.Address, topics []common.Hash, data []byte) *format.ChainLog {
	l := &format.ChainLog{ChainID: chainID, Address: addr.Bytes()}
	if len(data) > 0 {
		l.Data = data
	}
	for _, t := range topics {
		l.Topics = append(l.Topics, t.Bytes())
	}
	return l
}

// LogEffects returns the logs of a transaction receipt as effects: one
// ChainLog per log, in the receipt's order; nil when there are none.
func LogEffects(chainID uint64, logs []*types.Log) []format.Effect {
	var out []format.Effect
	for _, l := range logs {
		out = append(out, format.Effect{ChainLog: ChainLog(chainID, l.Address, l.Topics, l.Data)})
	}
	return out
}
