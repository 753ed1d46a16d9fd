package onchain

import (
	"github.com/ethereum/go-ethereum/common"

	"github.com/agentflightrecorder/afr/chain"
	"github.com/agentflightrecorder/afr/format"
)

// Deployed is what a verification of one log against a deployment reads
// from its chain: the operator's anchors of the log and the completeness
// check of the deployment's PaceSmartAccount.
type Deployed struct {
	// Anchors are the operator's anchors of the log, per log and in its
	// aggregate batches: a verifier.AnchorSource and AnchorChecker.
	Anchors LogAnchors
	// Executions is the completeness check of the deployment's
	// PaceSmartAccount (verifier.Options.Completeness), with the default
	// Registry and Slack; nil when the deployment has no account.
	Executions *Executions
}

// ForDeployment returns the sources of verifying log logID, anchored by
// operator on deployment d, through client c (which must serve d's chain:
// see backend.Dial). Event searches start at d.Block. batchesFile is the
// operator's batches file ("" when it anchors per log or publishes its
// batches in events only); for a deployment read from a file it is
// usually d.BatchesPath of that file's directory.
func ForDeployment(c ChainReader, d *chain.Deployment, operator common.Address, logID format.Digest, batchesFile string) Deployed {
	out := Deployed{Anchors: LogAnchors{Client: c, Contract: d.EpochAnchor, Operator: operator, LogID: logID, FromBlock: d.Block, BatchesFile: batchesFile}}
	if d.Pace != nil {
		out.Executions = &Executions{Client: c, Account: *d.Pace, FromBlock: d.Block}
	}
	return out
}
