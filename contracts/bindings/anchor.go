package bindings

import (
	"encoding/binary"

	"github.com/ethereum/go-ethereum/crypto"
)

// AnchorCommitment returns what EpochAnchor stores for (epoch, root) in an operator's head: the
// low 192 bits of keccak256(abi.encode(uint64 epoch, bytes32 root)), as EpochAnchor.commitmentOf.
func AnchorCommitment(epoch uint64, root [32]byte) [24]byte {
	var buf [64]byte
	binary.BigEndian.PutUint64(buf[24:32], epoch)
	copy(buf[32:], root[:])
	h := crypto.Keccak256(buf[:])
	return [24]byte(h[8:])
}
