package anchor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/format"
)

// ErrForeignAnchor is matched (errors.Is) by *ForeignAnchorError.
var ErrForeignAnchor = errors.New("anchor: epoch anchored by another writer with the same operator key")

// ForeignAnchorError reports an epoch that the chain holds with a root this
// log did not produce: the operator key is being used by another writer for
// the same log id (zero: the batch chain, see Batcher).
type ForeignAnchorError struct {
	Operator  common.Address
	Log       format.Digest
	Epoch     uint64
	Ours      format.Digest
	Theirs    format.Digest
	Tx        common.Hash
	Block     uint64
	ChainNext uint64 // the operator's next epoch on chain
}

func (e *ForeignAnchorError) Error() string {
	what := fmt.Sprintf("epoch %d of log %s", e.Epoch, e.Log)
	if e.Log.IsZero() {
		what = fmt.Sprintf("batch %d of the batch chain (log id 0)", e.Epoch)
	}
	return fmt.Sprintf("anchor: ANOTHER WRITER anchored %s for operator %s: root %s in tx %s (block %d), ours is %s; "+
		"the operator key is in use elsewhere for this log (hint: stop the other writer, rotate the key, and investigate before anchoring again)",
		what, e.Operator, e.Theirs, e.Tx, e.Block, e.Ours)
}

// Is makes errors.Is(err, ErrForeignAnchor) true.
func (e *ForeignAnchorError) Is(target error) bool { return target == ErrForeignAnchor }

// ErrNotEpochAnchor is matched (errors.Is) by *ContractError.
var ErrNotEpochAnchor = errors.New("anchor: the contract is not EpochAnchor version 2")

// ContractError reports that the contract to anchor to is not EpochAnchor
// version 2 (one head per operator and log id): there is no code at
// Contract on chain ChainID (Err is nil), or the contract there does not
// answer nextEpoch(address,bytes32) (Err says how the call failed), as
// EpochAnchor version 1 or another contract does not. Deploying
// EpochAnchor again (chain.Deploy) gives an address to anchor to.
type ContractError struct {
	Contract common.Address
	ChainID  uint64
	Err      error
}

func (e *ContractError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("anchor: no contract at %s on chain %d", e.Contract, e.ChainID)
	}
	return fmt.Sprintf("anchor: the contract at %s is not EpochAnchor version 2 (one head per operator and log id): %v", e.Contract, e.Err)
}

func (e *ContractError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrNotEpochAnchor) true.
func (e *ContractError) Is(target error) bool { return target == ErrNotEpochAnchor }

// errPersist marks a failure to write the queue file: Run stops on it, as
// the queue on disk no longer says what was sent.
var errPersist = errors.New("anchor: writing queue")

// ErrDeepReorg reports a reorg that took off the chain confirmed entries
// the queue has trimmed (Options.KeepAnchored) when their source (the log's
// epoch headers, a Batcher's batches file) cannot give them back as they
// were confirmed. Run stops on it.
var ErrDeepReorg = errors.New("anchor: a deep reorg took back trimmed confirmed anchors that cannot be re-queued")

// ErrQueueCorrupt is matched (errors.Is) by *QueueCorruptError.
var ErrQueueCorrupt = errors.New("anchor: queue file holds an unusable entry")

// QueueCorruptError reports a signed transaction in the queue file that does
// not decode. Run stops on it: the queue needs an operator's attention.
type QueueCorruptError struct {
	Epoch uint64
	Err   error // the decoding error
}

func (e *QueueCorruptError) Error() string {
	return fmt.Sprintf("anchor: %s holds an undecodable transaction for epoch %d: %v", QueueFile, e.Epoch, e.Err)
}

// Unwrap returns the decoding error.
func (e *QueueCorruptError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrQueueCorrupt) true.
func (e *QueueCorruptError) Is(target error) bool { return target == ErrQueueCorrupt }

// stopsRun reports whether Run must stop on err rather than retry it.
func stopsRun(err error) bool {
	var fe *ForeignAnchorError
	return errors.As(err, &fe) || errors.Is(err, errPersist) || errors.Is(err, ErrQueueCorrupt) || errors.Is(err, ErrDeepReorg)
}

// Node answers to eth_sendRawTransaction that the anchorer acts on.
// go-ethereum defines them as txpool.ErrAlreadyKnown and core.ErrNonceTooLow,
// but they reach the anchorer over JSON-RPC — anvil over HTTP, the embedded
// chain through an in-process RPC client — where only the message survives,
// so errors.Is could never match them. The messages are matched here and
// nowhere else. (Importing core and core/txpool for their error values would
// also add some 65 packages, state and trie databases among them.)
const (
	msgAlreadyKnown = "already known" // txpool.ErrAlreadyKnown
	msgNonceTooLow  = "nonce too low" // core.ErrNonceTooLow, followed by the nonces
)

// isAlreadyKnown reports whether the node refused a transaction it holds already.
func isAlreadyKnown(err error) bool { return hasMessage(err, msgAlreadyKnown) }

// isNonceTooLow reports whether the node refused a transaction whose nonce is used.
func isNonceTooLow(err error) bool { return hasMessage(err, msgNonceTooLow) }

func hasMessage(err error, msg string) bool {
	return err != nil && strings.Contains(strings.ToLower(err.Error()), msg)
}
