package chain

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/agentflightrecorder/afr/contracts/bindings"
)

// PaceConfig configures a PaceSmartAccount deployment.
type PaceConfig struct {
	Owner        common.Address
	PolicySigner common.Address
	Approvers    []common.Address
	Threshold    uint8
}

// Deployment says where AFR's contracts are on one chain. It is the JSON
// written by "afr deploy" (docs/SPEC.md, "Deployment file").
type Deployment struct {
	ChainID     uint64         `json:"chain_id"`
	RPC         string         `json:"rpc,omitempty"`
	Deployer    common.Address `json:"deployer"`
	EpochAnchor common.Address `json:"epoch_anchor"`
	// Block is the block of the EpochAnchor deployment: log searches start there.
	Block        uint64            `json:"block"`
	Pace         *common.Address   `json:"pace_smart_account,omitempty"`
	Owner        *common.Address   `json:"owner,omitempty"`
	PolicySigner *common.Address   `json:"policy_signer,omitempty"`
	Approvers    []common.Address  `json:"approvers,omitempty"`
	Threshold    uint8             `json:"threshold,omitempty"`
	GasUsed      map[string]uint64 `json:"gas_used"`
	// BatchesFile is where the operator publishes the contents of its
	// aggregate batches (docs/SPEC.md, "Batches file"), relative to the
	// deployment file's directory unless absolute; empty when it anchors
	// per log or publishes in events only.
	BatchesFile string `json:"batches_file,omitempty"`
}

// Target returns the chain of the deployment: its RPC URL and chain id.
func (d *Deployment) Target() Target { return Target{RPC: d.RPC, ChainID: d.ChainID} }

// BatchesPath returns the operator's batches file of a deployment read from
// a file in directory dir: BatchesFile resolved against dir, or "" when
// the deployment names none.
func (d *Deployment) BatchesPath(dir string) string {
	if d.BatchesFile == "" || filepath.IsAbs(d.BatchesFile) {
		return d.BatchesFile
	}
	return filepath.Join(dir, d.BatchesFile)
}

// Deploy deploys EpochAnchor and, when pace is not nil, a PaceSmartAccount,
// from key.
func Deploy(ctx context.Context, c Client, key *ecdsa.PrivateKey, pace *PaceConfig) (*Deployment, error) {
	chainID, err := c.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("chain: %w", err)
	}
	d := &Deployment{ChainID: chainID.Uint64(), Deployer: Address(key), GasUsed: map[string]uint64{}}
	rc, err := Transact(ctx, c, key, nil, nil, hexutil.MustDecode(bindings.EpochAnchorMetaData.Bin))
	if err != nil {
		return nil, fmt.Errorf("chain: deploying EpochAnchor: %w", err)
	}
	d.EpochAnchor, d.Block, d.GasUsed["EpochAnchor"] = rc.ContractAddress, rc.BlockNumber.Uint64(), rc.GasUsed
	if pace == nil {
		return d, nil
	}
	input := append(hexutil.MustDecode(bindings.PaceSmartAccountMetaData.Bin),
		bindings.NewPaceSmartAccount().PackConstructor(pace.Owner, pace.PolicySigner, pace.Approvers, pace.Threshold)...)
	rc, err = Transact(ctx, c, key, nil, nil, input)
	if err != nil {
		return nil, fmt.Errorf("chain: deploying PaceSmartAccount: %w", err)
	}
	addr := rc.ContractAddress
	d.Pace, d.GasUsed["PaceSmartAccount"] = &addr, rc.GasUsed
	d.Owner, d.PolicySigner, d.Approvers, d.Threshold = &pace.Owner, &pace.PolicySigner, pace.Approvers, pace.Threshold
	return d, nil
}
