// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package bindings

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = bytes.Equal
	_ = errors.New
	_ = big.NewInt
	_ = common.Big1
	_ = types.BloomLookup
	_ = abi.ConvertType
)

// IPaceSmartAccountCall is an auto generated low-level Go binding around an user-defined struct.
type IPaceSmartAccountCall struct {
	Target common.Address
	Value  *big.Int
	Data   []byte
}

// IPaceSmartAccountDelegation is an auto generated low-level Go binding around an user-defined struct.
type IPaceSmartAccountDelegation struct {
	Delegator       common.Address
	Delegate        common.Address
	Parent          [32]byte
	Targets         []common.Address
	Selectors       [][4]byte
	MaxValuePerCall *big.Int
	MaxValueTotal   *big.Int
	Expiry          uint64
	Salt            [32]byte
}

// IPaceSmartAccountPDRTerms is an auto generated low-level Go binding around an user-defined struct.
type IPaceSmartAccountPDRTerms struct {
	Nonce            uint64
	PolicyId         [32]byte
	Decision         uint8
	ApprovalRequired bool
	Expiry           uint64
	EventId          [32]byte
}

// IPaceSmartAccountSig is an auto generated low-level Go binding around an user-defined struct.
type IPaceSmartAccountSig struct {
	R  [32]byte
	Vs [32]byte
}

// IPaceSmartAccountSignedDelegation is an auto generated low-level Go binding around an user-defined struct.
type IPaceSmartAccountSignedDelegation struct {
	Delegation IPaceSmartAccountDelegation
	Signature  IPaceSmartAccountSig
}

// PaceSmartAccountMetaData contains all meta data concerning the PaceSmartAccount contract.
var PaceSmartAccountMetaData = bind.MetaData{
	ABI: "[{\"type\":\"constructor\",\"inputs\":[{\"name\":\"owner_\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"policySigner_\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"approvers_\",\"type\":\"address[]\",\"internalType\":\"address[]\"},{\"name\":\"threshold_\",\"type\":\"uint8\",\"internalType\":\"uint8\"}],\"stateMutability\":\"nonpayable\"},{\"type\":\"receive\",\"stateMutability\":\"payable\"},{\"type\":\"function\",\"name\":\"DECISION_ALLOW\",\"inputs\":[],\"outputs\":[{\"name\":\"\",\"type\":\"uint8\",\"internalType\":\"uint8\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"DELEGATED_PDR_TYPEHASH\",\"inputs\":[],\"outputs\":[{\"name\":\"\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"DELEGATION_TYPEHASH\",\"inputs\":[],\"outputs\":[{\"name\":\"\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"MAX_DELEGATION_DEPTH\",\"inputs\":[],\"outputs\":[{\"name\":\"\",\"type\":\"uint256\",\"internalType\":\"uint256\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"PDR_TYPEHASH\",\"inputs\":[],\"outputs\":[{\"name\":\"\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"acceptOwnership\",\"inputs\":[],\"outputs\":[],\"stateMutability\":\"nonpayable\"},{\"type\":\"function\",\"name\":\"approverCount\",\"inputs\":[],\"outputs\":[{\"name\":\"\",\"type\":\"uint256\",\"internalType\":\"uint256\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"delegatedNonce\",\"inputs\":[],\"outputs\":[{\"name\":\"\",\"type\":\"uint64\",\"internalType\":\"uint64\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"domainSeparator\",\"inputs\":[],\"outputs\":[{\"name\":\"\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"eip712Domain\",\"inputs\":[],\"outputs\":[{\"name\":\"fields\",\"type\":\"bytes1\",\"internalType\":\"bytes1\"},{\"name\":\"name\",\"type\":\"string\",\"internalType\":\"string\"},{\"name\":\"version\",\"type\":\"string\",\"internalType\":\"string\"},{\"name\":\"chainId\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"verifyingContract\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"salt\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"extensions\",\"type\":\"uint256[]\",\"internalType\":\"uint256[]\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"execute\",\"inputs\":[{\"name\":\"target\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"value\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"data\",\"type\":\"bytes\",\"internalType\":\"bytes\"},{\"name\":\"t\",\"type\":\"tuple\",\"internalType\":\"structIPaceSmartAccount.PDRTerms\",\"components\":[{\"name\":\"nonce\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"policyId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"decision\",\"type\":\"uint8\",\"internalType\":\"uint8\"},{\"name\":\"approvalRequired\",\"type\":\"bool\",\"internalType\":\"bool\"},{\"name\":\"expiry\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"eventId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]},{\"name\":\"policySig\",\"type\":\"tuple\",\"internalType\":\"structIPaceSmartAccount.Sig\",\"components\":[{\"name\":\"r\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"vs\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]}],\"outputs\":[{\"name\":\"success\",\"type\":\"bool\",\"internalType\":\"bool\"},{\"name\":\"result\",\"type\":\"bytes\",\"internalType\":\"bytes\"}],\"stateMutability\":\"payable\"},{\"type\":\"function\",\"name\":\"executeBatch\",\"inputs\":[{\"name\":\"calls\",\"type\":\"tuple[]\",\"internalType\":\"structIPaceSmartAccount.Call[]\",\"components\":[{\"name\":\"target\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"value\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"data\",\"type\":\"bytes\",\"internalType\":\"bytes\"}]},{\"name\":\"t\",\"type\":\"tuple\",\"internalType\":\"structIPaceSmartAccount.PDRTerms\",\"components\":[{\"name\":\"nonce\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"policyId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"decision\",\"type\":\"uint8\",\"internalType\":\"uint8\"},{\"name\":\"approvalRequired\",\"type\":\"bool\",\"internalType\":\"bool\"},{\"name\":\"expiry\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"eventId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]},{\"name\":\"policySig\",\"type\":\"tuple\",\"internalType\":\"structIPaceSmartAccount.Sig\",\"components\":[{\"name\":\"r\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"vs\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]},{\"name\":\"approvals\",\"type\":\"tuple[]\",\"internalType\":\"structIPaceSmartAccount.Sig[]\",\"components\":[{\"name\":\"r\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"vs\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]}],\"outputs\":[],\"stateMutability\":\"payable\"},{\"type\":\"function\",\"name\":\"executeCompact_dFki0\",\"inputs\":[],\"outputs\":[{\"name\":\"success\",\"type\":\"bool\",\"internalType\":\"bool\"},{\"name\":\"result\",\"type\":\"bytes\",\"internalType\":\"bytes\"}],\"stateMutability\":\"payable\"},{\"type\":\"function\",\"name\":\"executeDelegated\",\"inputs\":[{\"name\":\"c\",\"type\":\"tuple\",\"internalType\":\"structIPaceSmartAccount.Call\",\"components\":[{\"name\":\"target\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"value\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"data\",\"type\":\"bytes\",\"internalType\":\"bytes\"}]},{\"name\":\"t\",\"type\":\"tuple\",\"internalType\":\"structIPaceSmartAccount.PDRTerms\",\"components\":[{\"name\":\"nonce\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"policyId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"decision\",\"type\":\"uint8\",\"internalType\":\"uint8\"},{\"name\":\"approvalRequired\",\"type\":\"bool\",\"internalType\":\"bool\"},{\"name\":\"expiry\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"eventId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]},{\"name\":\"delegateSig\",\"type\":\"tuple\",\"internalType\":\"structIPaceSmartAccount.Sig\",\"components\":[{\"name\":\"r\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"vs\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]},{\"name\":\"approvals\",\"type\":\"tuple[]\",\"internalType\":\"structIPaceSmartAccount.Sig[]\",\"components\":[{\"name\":\"r\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"vs\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]},{\"name\":\"chain\",\"type\":\"tuple[]\",\"internalType\":\"structIPaceSmartAccount.SignedDelegation[]\",\"components\":[{\"name\":\"delegation\",\"type\":\"tuple\",\"internalType\":\"structIPaceSmartAccount.Delegation\",\"components\":[{\"name\":\"delegator\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"delegate\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"parent\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"targets\",\"type\":\"address[]\",\"internalType\":\"address[]\"},{\"name\":\"selectors\",\"type\":\"bytes4[]\",\"internalType\":\"bytes4[]\"},{\"name\":\"maxValuePerCall\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"maxValueTotal\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"expiry\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"salt\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]},{\"name\":\"signature\",\"type\":\"tuple\",\"internalType\":\"structIPaceSmartAccount.Sig\",\"components\":[{\"name\":\"r\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"vs\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]}]}],\"outputs\":[{\"name\":\"success\",\"type\":\"bool\",\"internalType\":\"bool\"},{\"name\":\"result\",\"type\":\"bytes\",\"internalType\":\"bytes\"}],\"stateMutability\":\"payable\"},{\"type\":\"function\",\"name\":\"executeWithApprovals\",\"inputs\":[{\"name\":\"target\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"value\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"data\",\"type\":\"bytes\",\"internalType\":\"bytes\"},{\"name\":\"t\",\"type\":\"tuple\",\"internalType\":\"structIPaceSmartAccount.PDRTerms\",\"components\":[{\"name\":\"nonce\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"policyId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"decision\",\"type\":\"uint8\",\"internalType\":\"uint8\"},{\"name\":\"approvalRequired\",\"type\":\"bool\",\"internalType\":\"bool\"},{\"name\":\"expiry\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"eventId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]},{\"name\":\"policySig\",\"type\":\"tuple\",\"internalType\":\"structIPaceSmartAccount.Sig\",\"components\":[{\"name\":\"r\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"vs\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]},{\"name\":\"approvals\",\"type\":\"tuple[]\",\"internalType\":\"structIPaceSmartAccount.Sig[]\",\"components\":[{\"name\":\"r\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"vs\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]}],\"outputs\":[{\"name\":\"success\",\"type\":\"bool\",\"internalType\":\"bool\"},{\"name\":\"result\",\"type\":\"bytes\",\"internalType\":\"bytes\"}],\"stateMutability\":\"payable\"},{\"type\":\"function\",\"name\":\"hashBatch\",\"inputs\":[{\"name\":\"calls\",\"type\":\"tuple[]\",\"internalType\":\"structIPaceSmartAccount.Call[]\",\"components\":[{\"name\":\"target\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"value\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"data\",\"type\":\"bytes\",\"internalType\":\"bytes\"}]},{\"name\":\"t\",\"type\":\"tuple\",\"internalType\":\"structIPaceSmartAccount.PDRTerms\",\"components\":[{\"name\":\"nonce\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"policyId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"decision\",\"type\":\"uint8\",\"internalType\":\"uint8\"},{\"name\":\"approvalRequired\",\"type\":\"bool\",\"internalType\":\"bool\"},{\"name\":\"expiry\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"eventId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]}],\"outputs\":[{\"name\":\"\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"hashDelegatedPDR\",\"inputs\":[{\"name\":\"target\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"value\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"data\",\"type\":\"bytes\",\"internalType\":\"bytes\"},{\"name\":\"t\",\"type\":\"tuple\",\"internalType\":\"structIPaceSmartAccount.PDRTerms\",\"components\":[{\"name\":\"nonce\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"policyId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"decision\",\"type\":\"uint8\",\"internalType\":\"uint8\"},{\"name\":\"approvalRequired\",\"type\":\"bool\",\"internalType\":\"bool\"},{\"name\":\"expiry\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"eventId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]}],\"outputs\":[{\"name\":\"\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"hashDelegation\",\"inputs\":[{\"name\":\"d\",\"type\":\"tuple\",\"internalType\":\"structIPaceSmartAccount.Delegation\",\"components\":[{\"name\":\"delegator\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"delegate\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"parent\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"targets\",\"type\":\"address[]\",\"internalType\":\"address[]\"},{\"name\":\"selectors\",\"type\":\"bytes4[]\",\"internalType\":\"bytes4[]\"},{\"name\":\"maxValuePerCall\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"maxValueTotal\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"expiry\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"salt\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]}],\"outputs\":[{\"name\":\"\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"hashPDR\",\"inputs\":[{\"name\":\"target\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"value\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"data\",\"type\":\"bytes\",\"internalType\":\"bytes\"},{\"name\":\"t\",\"type\":\"tuple\",\"internalType\":\"structIPaceSmartAccount.PDRTerms\",\"components\":[{\"name\":\"nonce\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"policyId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"decision\",\"type\":\"uint8\",\"internalType\":\"uint8\"},{\"name\":\"approvalRequired\",\"type\":\"bool\",\"internalType\":\"bool\"},{\"name\":\"expiry\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"eventId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]}],\"outputs\":[{\"name\":\"\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"isApprover\",\"inputs\":[{\"name\":\"approver\",\"type\":\"address\",\"internalType\":\"address\"}],\"outputs\":[{\"name\":\"\",\"type\":\"bool\",\"internalType\":\"bool\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"isRevoked\",\"inputs\":[{\"name\":\"delegationHash\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"outputs\":[{\"name\":\"\",\"type\":\"bool\",\"internalType\":\"bool\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"isValidSignature\",\"inputs\":[{\"name\":\"hash\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"signature\",\"type\":\"bytes\",\"internalType\":\"bytes\"}],\"outputs\":[{\"name\":\"\",\"type\":\"bytes4\",\"internalType\":\"bytes4\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"nonce\",\"inputs\":[],\"outputs\":[{\"name\":\"\",\"type\":\"uint64\",\"internalType\":\"uint64\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"owner\",\"inputs\":[],\"outputs\":[{\"name\":\"\",\"type\":\"address\",\"internalType\":\"address\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"packCall\",\"inputs\":[{\"name\":\"target\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"selector\",\"type\":\"bytes4\",\"internalType\":\"bytes4\"},{\"name\":\"success\",\"type\":\"bool\",\"internalType\":\"bool\"}],\"outputs\":[{\"name\":\"\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"stateMutability\":\"pure\"},{\"type\":\"function\",\"name\":\"pendingOwner\",\"inputs\":[],\"outputs\":[{\"name\":\"\",\"type\":\"address\",\"internalType\":\"address\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"policySigner\",\"inputs\":[],\"outputs\":[{\"name\":\"\",\"type\":\"address\",\"internalType\":\"address\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"renounceOwnership\",\"inputs\":[],\"outputs\":[],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"revokeDelegation\",\"inputs\":[{\"name\":\"delegationHash\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"outputs\":[],\"stateMutability\":\"nonpayable\"},{\"type\":\"function\",\"name\":\"setApprover\",\"inputs\":[{\"name\":\"approver\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"enabled\",\"type\":\"bool\",\"internalType\":\"bool\"}],\"outputs\":[],\"stateMutability\":\"nonpayable\"},{\"type\":\"function\",\"name\":\"setPolicySigner\",\"inputs\":[{\"name\":\"newSigner\",\"type\":\"address\",\"internalType\":\"address\"}],\"outputs\":[],\"stateMutability\":\"nonpayable\"},{\"type\":\"function\",\"name\":\"setThreshold\",\"inputs\":[{\"name\":\"newThreshold\",\"type\":\"uint8\",\"internalType\":\"uint8\"}],\"outputs\":[],\"stateMutability\":\"nonpayable\"},{\"type\":\"function\",\"name\":\"spent\",\"inputs\":[{\"name\":\"delegationHash\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"outputs\":[{\"name\":\"\",\"type\":\"uint256\",\"internalType\":\"uint256\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"threshold\",\"inputs\":[],\"outputs\":[{\"name\":\"\",\"type\":\"uint8\",\"internalType\":\"uint8\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"transferOwnership\",\"inputs\":[{\"name\":\"newOwner\",\"type\":\"address\",\"internalType\":\"address\"}],\"outputs\":[],\"stateMutability\":\"nonpayable\"},{\"type\":\"event\",\"name\":\"ApproverSet\",\"inputs\":[{\"name\":\"approver\",\"type\":\"address\",\"indexed\":true,\"internalType\":\"address\"},{\"name\":\"enabled\",\"type\":\"bool\",\"indexed\":false,\"internalType\":\"bool\"}],\"anonymous\":false},{\"type\":\"event\",\"name\":\"DelegationRevoked\",\"inputs\":[{\"name\":\"delegationHash\",\"type\":\"bytes32\",\"indexed\":true,\"internalType\":\"bytes32\"}],\"anonymous\":false},{\"type\":\"event\",\"name\":\"DelegationUsed\",\"inputs\":[{\"name\":\"pdrHash\",\"type\":\"bytes32\",\"indexed\":true,\"internalType\":\"bytes32\"},{\"name\":\"delegate\",\"type\":\"address\",\"indexed\":true,\"internalType\":\"address\"},{\"name\":\"chain\",\"type\":\"bytes32[]\",\"indexed\":false,\"internalType\":\"bytes32[]\"}],\"anonymous\":false},{\"type\":\"event\",\"name\":\"EIP712DomainChanged\",\"inputs\":[],\"anonymous\":false},{\"type\":\"event\",\"name\":\"Executed\",\"inputs\":[{\"name\":\"pdrHash\",\"type\":\"bytes32\",\"indexed\":true,\"internalType\":\"bytes32\"},{\"name\":\"eventId\",\"type\":\"bytes32\",\"indexed\":true,\"internalType\":\"bytes32\"},{\"name\":\"call\",\"type\":\"bytes32\",\"indexed\":false,\"internalType\":\"bytes32\"},{\"name\":\"value\",\"type\":\"uint256\",\"indexed\":false,\"internalType\":\"uint256\"}],\"anonymous\":false},{\"type\":\"event\",\"name\":\"OwnershipTransferStarted\",\"inputs\":[{\"name\":\"previousOwner\",\"type\":\"address\",\"indexed\":true,\"internalType\":\"address\"},{\"name\":\"newOwner\",\"type\":\"address\",\"indexed\":true,\"internalType\":\"address\"}],\"anonymous\":false},{\"type\":\"event\",\"name\":\"OwnershipTransferred\",\"inputs\":[{\"name\":\"previousOwner\",\"type\":\"address\",\"indexed\":true,\"internalType\":\"address\"},{\"name\":\"newOwner\",\"type\":\"address\",\"indexed\":true,\"internalType\":\"address\"}],\"anonymous\":false},{\"type\":\"event\",\"name\":\"PolicySignerChanged\",\"inputs\":[{\"name\":\"previousSigner\",\"type\":\"address\",\"indexed\":true,\"internalType\":\"address\"},{\"name\":\"newSigner\",\"type\":\"address\",\"indexed\":true,\"internalType\":\"address\"}],\"anonymous\":false},{\"type\":\"event\",\"name\":\"ThresholdChanged\",\"inputs\":[{\"name\":\"previousThreshold\",\"type\":\"uint8\",\"indexed\":false,\"internalType\":\"uint8\"},{\"name\":\"newThreshold\",\"type\":\"uint8\",\"indexed\":false,\"internalType\":\"uint8\"}],\"anonymous\":false},{\"type\":\"error\",\"name\":\"ApproverUnchanged\",\"inputs\":[{\"name\":\"approver\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"enabled\",\"type\":\"bool\",\"internalType\":\"bool\"}]},{\"type\":\"error\",\"name\":\"ApproversNotSorted\",\"inputs\":[{\"name\":\"previous\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"next\",\"type\":\"address\",\"internalType\":\"address\"}]},{\"type\":\"error\",\"name\":\"CallFailed\",\"inputs\":[{\"name\":\"index\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"returnData\",\"type\":\"bytes\",\"internalType\":\"bytes\"}]},{\"type\":\"error\",\"name\":\"DecisionNotAllow\",\"inputs\":[{\"name\":\"decision\",\"type\":\"uint8\",\"internalType\":\"uint8\"}]},{\"type\":\"error\",\"name\":\"DelegationChainTooLong\",\"inputs\":[{\"name\":\"length\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"max\",\"type\":\"uint256\",\"internalType\":\"uint256\"}]},{\"type\":\"error\",\"name\":\"DelegationExpired\",\"inputs\":[{\"name\":\"delegationHash\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"expiry\",\"type\":\"uint64\",\"internalType\":\"uint64\"}]},{\"type\":\"error\",\"name\":\"DelegationParentMismatch\",\"inputs\":[{\"name\":\"index\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"expected\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"got\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]},{\"type\":\"error\",\"name\":\"DelegatorMismatch\",\"inputs\":[{\"name\":\"index\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"expected\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"got\",\"type\":\"address\",\"internalType\":\"address\"}]},{\"type\":\"error\",\"name\":\"DuplicateApprover\",\"inputs\":[{\"name\":\"approver\",\"type\":\"address\",\"internalType\":\"address\"}]},{\"type\":\"error\",\"name\":\"ECDSAInvalidSignature\",\"inputs\":[]},{\"type\":\"error\",\"name\":\"ECDSAInvalidSignatureLength\",\"inputs\":[{\"name\":\"length\",\"type\":\"uint256\",\"internalType\":\"uint256\"}]},{\"type\":\"error\",\"name\":\"ECDSAInvalidSignatureS\",\"inputs\":[{\"name\":\"s\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]},{\"type\":\"error\",\"name\":\"EmptyDelegationChain\",\"inputs\":[]},{\"type\":\"error\",\"name\":\"InsufficientGas\",\"inputs\":[]},{\"type\":\"error\",\"name\":\"InvalidDelegationSignature\",\"inputs\":[{\"name\":\"index\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"recovered\",\"type\":\"address\",\"internalType\":\"address\"}]},{\"type\":\"error\",\"name\":\"InvalidNonce\",\"inputs\":[{\"name\":\"expected\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"got\",\"type\":\"uint64\",\"internalType\":\"uint64\"}]},{\"type\":\"error\",\"name\":\"InvalidShortString\",\"inputs\":[]},{\"type\":\"error\",\"name\":\"InvalidThreshold\",\"inputs\":[{\"name\":\"threshold\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"approverCount\",\"type\":\"uint256\",\"internalType\":\"uint256\"}]},{\"type\":\"error\",\"name\":\"MalformedCompactCall\",\"inputs\":[]},{\"type\":\"error\",\"name\":\"NotApprover\",\"inputs\":[{\"name\":\"signer\",\"type\":\"address\",\"internalType\":\"address\"}]},{\"type\":\"error\",\"name\":\"OwnableInvalidOwner\",\"inputs\":[{\"name\":\"owner\",\"type\":\"address\",\"internalType\":\"address\"}]},{\"type\":\"error\",\"name\":\"OwnableUnauthorizedAccount\",\"inputs\":[{\"name\":\"account\",\"type\":\"address\",\"internalType\":\"address\"}]},{\"type\":\"error\",\"name\":\"PDRExpired\",\"inputs\":[{\"name\":\"expiry\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"nowTs\",\"type\":\"uint256\",\"internalType\":\"uint256\"}]},{\"type\":\"error\",\"name\":\"PolicySignerIsApprover\",\"inputs\":[{\"name\":\"account\",\"type\":\"address\",\"internalType\":\"address\"}]},{\"type\":\"error\",\"name\":\"ReentrancyGuardReentrantCall\",\"inputs\":[]},{\"type\":\"error\",\"name\":\"RenounceDisabled\",\"inputs\":[]},{\"type\":\"error\",\"name\":\"RevokedDelegation\",\"inputs\":[{\"name\":\"delegationHash\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]},{\"type\":\"error\",\"name\":\"SelectorNotDelegated\",\"inputs\":[{\"name\":\"delegationHash\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"selector\",\"type\":\"bytes4\",\"internalType\":\"bytes4\"}]},{\"type\":\"error\",\"name\":\"StringTooLong\",\"inputs\":[{\"name\":\"str\",\"type\":\"string\",\"internalType\":\"string\"}]},{\"type\":\"error\",\"name\":\"TargetIsAccount\",\"inputs\":[]},{\"type\":\"error\",\"name\":\"TargetNotDelegated\",\"inputs\":[{\"name\":\"delegationHash\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"target\",\"type\":\"address\",\"internalType\":\"address\"}]},{\"type\":\"error\",\"name\":\"TooFewApprovals\",\"inputs\":[{\"name\":\"got\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"threshold\",\"type\":\"uint256\",\"internalType\":\"uint256\"}]},{\"type\":\"error\",\"name\":\"UnauthorizedDelegate\",\"inputs\":[{\"name\":\"delegate\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"recovered\",\"type\":\"address\",\"internalType\":\"address\"}]},{\"type\":\"error\",\"name\":\"UnauthorizedPolicySigner\",\"inputs\":[{\"name\":\"recovered\",\"type\":\"address\",\"internalType\":\"address\"}]},{\"type\":\"error\",\"name\":\"UndelegableCalldata\",\"inputs\":[{\"name\":\"length\",\"type\":\"uint256\",\"internalType\":\"uint256\"}]},{\"type\":\"error\",\"name\":\"ValueOverCallCap\",\"inputs\":[{\"name\":\"delegationHash\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"value\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"cap\",\"type\":\"uint256\",\"internalType\":\"uint256\"}]},{\"type\":\"error\",\"name\":\"ValueOverTotalCap\",\"inputs\":[{\"name\":\"delegationHash\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"total\",\"type\":\"uint256\",\"internalType\":\"uint256\"},{\"name\":\"cap\",\"type\":\"uint256\",\"internalType\":\"uint256\"}]},{\"type\":\"error\",\"name\":\"ZeroAddress\",\"inputs\":[]}]",
	ID:  "PaceSmartAccount",
	Bin: "0x6101c0604052348015610010575f5ffd5b50604051614e17380380614e1783398101604081905261002f91610596565b604080518082018252601081526f141858d954db585c9d1058d8dbdd5b9d60821b602080830191909152825180840190935260018352603160f81b9083015290856001600160a01b03811661009e57604051631e4fbdf760e01b81525f60048201526024015b60405180910390fd5b6100a7816102b8565b506100b1826102c4565b610120526100be816102c4565b61014052815160208084019190912060e052815190820120610100524660a05261013760e05161010051604080515f516020614df75f395f51905f5260208201529081019290925260608201524660808201523060a08201525f9060c00160405160208183030381529060405280519060200120905090565b60805250503060c0526001600160a01b0383166101675760405163d92e233d60e01b815260040160405180910390fd5b5f5b82518110156101fa57836001600160a01b031683828151811061018e5761018e610693565b60200260200101516001600160a01b0316036101c85760405163e4a3c90b60e01b81526001600160a01b0385166004820152602401610095565b6101f28382815181106101dd576101dd610693565b6020026020010151600161030160201b60201c565b600101610169565b506102108160ff1660055461041e60201b60201c565b6001600160a01b03831660ff60d01b60d083901b1617600355610231610465565b610160524661018052306101a0526040516001600160a01b038416905f907fa905917f60d605b78de2f22f23aa555c55cb7aadf4979d7976930ea86451b5a2908290a3604080515f815260ff831660208201527f2a855b929b9a53c6fb5b5ed248b27e502b709c088e036a5aa17620c8fc5085a9910160405180910390a150505050610743565b6102c1816104f4565b50565b5f5f829050601f815111156102ee578260405163305a27a960e01b815260040161009591906106a7565b80516102f9826106dc565b179392505050565b6001600160a01b0382166103285760405163d92e233d60e01b815260040160405180910390fd5b6001600160a01b0382165f9081526004602052604090205481151560ff90911615150361037b57604051632724aac360e11b81526001600160a01b03831660048201528115156024820152604401610095565b6001600160a01b0382165f908152600460205260409020805460ff191682158015919091179091556103c05760058054905f6103b683610716565b91905055506103d5565b60058054905f6103cf8361072e565b91905055505b816001600160a01b03167f4b83d3ec19de62fd4bf3867e481d5031aef63b426a1172a6e7199334e504e2f882604051610412911515815260200190565b60405180910390a25050565b80156104355781158061043057508082115b610439565b8115155b1561046157604051637b7a98f160e01b81526004810183905260248101829052604401610095565b5050565b5f60c0516001600160a01b0316306001600160a01b031614801561048a575060a05146145b15610496575060805190565b6104ef60e05161010051604080515f516020614df75f395f51905f5260208201529081019290925260608201524660808201523060a08201525f9060c00160405160208183030381529060405280519060200120905090565b905090565b600880546001600160a01b03191690556102c1815f80546001600160a01b038381166001600160a01b0319831681178455604051919092169283917f8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e09190a35050565b80516001600160a01b038116811461056d575f5ffd5b919050565b634e487b7160e01b5f52604160045260245ffd5b805160ff8116811461056d575f5ffd5b5f5f5f5f608085870312156105a9575f5ffd5b6105b285610557565b93506105c060208601610557565b60408601519093506001600160401b038111156105db575f5ffd5b8501601f810187136105eb575f5ffd5b80516001600160401b0381111561060457610604610572565b604051600582901b90603f8201601f191681016001600160401b038111828210171561063257610632610572565b60405291825260208184018101929081018a84111561064f575f5ffd5b6020850194505b838510156106755761066785610557565b815260209485019401610656565b5094506106889250505060608601610586565b905092959194509250565b634e487b7160e01b5f52603260045260245ffd5b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b805160208083015191908110156106fc575f198160200360031b1b821691505b50919050565b634e487b7160e01b5f52601160045260245ffd5b5f6001820161072757610727610702565b5060010190565b5f8161073c5761073c610702565b505f190190565b60805160a05160c05160e05161010051610120516101405161016051610180516101a0516146456107b25f395f6120e601525f6120c501525f6120a401525f61191301525f6118e801525f61205201525f61202a01525f611f8501525f611faf01525f611fd901526146455ff3fe608060405260043610610229575f3560e01c806384b0196e11610131578063e30c3978116100ac578063ec4c3fad1161007c578063f2fde38b11610062578063f2fde38b146106c4578063f4968a0c146106e3578063f698da25146106f6575f5ffd5b8063ec4c3fad14610692578063f0780608146106b1575f5ffd5b8063e30c3978146105f7578063e5a9860314610621578063e656d33914610640578063e7a324dc1461065f575f5ffd5b8063affed0e011610101578063d5ee2fbe116100e7578063d5ee2fbe1461059a578063d64063c2146105b9578063d76fd2e7146105d8575f5ffd5b8063affed0e01461055b578063b96f2b071461057b575f5ffd5b806384b0196e146104ad5780638da5cb5b146104d45780638e8eba4e146104fd578063ae20bed314610530575f5ffd5b80633d2a8bc5116101c15780636402925211610191578063715018a611610177578063715018a61461046f5780637969a7131461048557806379ba509714610499575f5ffd5b8063640292521461042d5780636d218e4814610441575f5ffd5b80633d2a8bc5146103785780634294857f1461039757806342a29460146103d557806342cde4e814610407575f5ffd5b80631fe14494116101fc5780631fe14494146102d9578063232c3961146102ec57806338eab6b9146103245780633cb3d06314610359575f5ffd5b80608d14610234578063128e9be6146102535780631626ba7e146102765780631c428c46146102c6575f5ffd5b3661023057005b5f5ffd5b61023c61070a565b60405161024a92919061381c565b60405180910390f35b34801561025e575f5ffd5b5061026860055481565b60405190815260200161024a565b348015610281575f5ffd5b50610295610290366004613883565b610719565b6040517fffffffff00000000000000000000000000000000000000000000000000000000909116815260200161024a565b61023c6102d4366004613973565b6107e5565b61023c6102e7366004613a5e565b6108e1565b3480156102f7575f5ffd5b5061030b60035460d81c647fffffffff1690565b60405167ffffffffffffffff909116815260200161024a565b34801561032f575f5ffd5b506003545b60405173ffffffffffffffffffffffffffffffffffffffff909116815260200161024a565b348015610364575f5ffd5b50610268610373366004613b0d565b610901565b348015610383575f5ffd5b50610268610392366004613bb7565b610950565b3480156103a2575f5ffd5b506103c56103b1366004613bf7565b60066020525f908152604090205460ff1681565b604051901515815260200161024a565b3480156103e0575f5ffd5b506102687e71486a45a1589aa15196c44815c5236ce454fdb6a7bb8676534287cc1c1f8081565b348015610412575f5ffd5b5061041b6109ab565b60405160ff909116815260200161024a565b348015610438575f5ffd5b5061041b600181565b34801561044c575f5ffd5b506103c561045b366004613c0e565b60046020525f908152604090205460ff1681565b34801561047a575f5ffd5b506104836109bd565b005b348015610490575f5ffd5b50610268600481565b3480156104a4575f5ffd5b506104836109f7565b3480156104b8575f5ffd5b506104c1610a73565b60405161024a9796959493929190613c27565b3480156104df575f5ffd5b505f5473ffffffffffffffffffffffffffffffffffffffff16610334565b348015610508575f5ffd5b506102687f96469a0fe3b25026bfff2a5dea8b4c96c364177a184c94308471d10facacbe6481565b34801561053b575f5ffd5b5061026861054a366004613bf7565b60076020525f908152604090205481565b348015610566575f5ffd5b5061030b60035460a01c65ffffffffffff1690565b348015610586575f5ffd5b50610483610595366004613bf7565b610ad1565b3480156105a5575f5ffd5b506104836105b4366004613c0e565b610b39565b3480156105c4575f5ffd5b506102686105d3366004613b0d565b610cab565b3480156105e3575f5ffd5b506104836105f2366004613ce6565b610ce1565b348015610602575f5ffd5b5060085473ffffffffffffffffffffffffffffffffffffffff16610334565b34801561062c575f5ffd5b5061048361063b366004613d17565b610d9a565b34801561064b575f5ffd5b5061026861065a366004613d37565b610e51565b34801561066a575f5ffd5b506102687fb49257f7e8d779cd80e817476d9275284a108c8f10323504197183de384364fa81565b34801561069d575f5ffd5b506102686106ac366004613d6f565b610fee565b6104836106bf366004613db7565b611094565b3480156106cf575f5ffd5b506104836106de366004613c0e565b611229565b61023c6106f1366004613e4c565b611232565b348015610701575f5ffd5b5061026861124c565b5f6060610715611255565b9091565b5f610725848484611310565b806107365750610736848484611485565b1561076257507f1626ba7e000000000000000000000000000000000000000000000000000000006107de565b7f77397739773977397739773977397739773977397739773977397739773977398414801561078f575081155b156107bb57507f77390001000000000000000000000000000000000000000000000000000000006107de565b507fffffffff000000000000000000000000000000000000000000000000000000005b9392505050565b5f60605f5f6107f98b8b8b8b8b8b8b6114e2565b915091503073ffffffffffffffffffffffffffffffffffffffff8c3516036108285763773f5c675f526004601cfd5b610871817b01000000000000000000000000000000000000000000000000000000017f800000000000000000000000000000000000000000000000000000000000000017600355565b6108a18260a08c013561088760208f018f613c0e565b8e602001358f806040019061089c9190613ec9565b611686565b90945092506108d3600380547f7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff169055565b505097509795505050505050565b5f606083836108f28a8a84846117cf565b50509850989650505050505050565b5f6109467f96469a0fe3b25026bfff2a5dea8b4c96c364177a184c94308471d10facacbe6487878787604051610938929190613f2a565b60405180910390208661183d565b9695505050505050565b5f8161095c575f610966565b6701000000000000005b7fffffffffffffffffffffffffffffffffffffffff000000000000000000000000606086901b166bffffffff000000000000000060a086901c16171790509392505050565b5f6109b860035460d01c90565b905090565b6109c5611884565b6040517f8905116500000000000000000000000000000000000000000000000000000000815260040160405180910390fd5b600854339073ffffffffffffffffffffffffffffffffffffffff168114610a67576040517f118cdaa700000000000000000000000000000000000000000000000000000000815273ffffffffffffffffffffffffffffffffffffffff821660048201526024015b60405180910390fd5b610a70816118d8565b50565b5f6060805f5f5f6060610a846118e1565b610a8c61190c565b604080515f808252602082019092527f0f000000000000000000000000000000000000000000000000000000000000009b939a50919850469750309650945092509050565b610ad9611884565b5f8181526006602052604080822080547fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff001660011790555182917f6eb24ce38eb0f7d1e3b4291d5543c7286f02be3daed061b0f7eb6491213deb2191a250565b610b41611884565b73ffffffffffffffffffffffffffffffffffffffff8116610b8e576040517fd92e233d00000000000000000000000000000000000000000000000000000000815260040160405180910390fd5b5f610b97611937565b73ffffffffffffffffffffffffffffffffffffffff83165f9081526004602052604090205490915060ff1615610c11576040517fe4a3c90b00000000000000000000000000000000000000000000000000000000815273ffffffffffffffffffffffffffffffffffffffff83166004820152602401610a5e565b8173ffffffffffffffffffffffffffffffffffffffff168173ffffffffffffffffffffffffffffffffffffffff167fa905917f60d605b78de2f22f23aa555c55cb7aadf4979d7976930ea86451b5a260405160405180910390a37fffffffffffffffffffffffff00000000000000000000000000000000000000001673ffffffffffffffffffffffffffffffffffffffff90911617600355565b5f6109467e71486a45a1589aa15196c44815c5236ce454fdb6a7bb8676534287cc1c1f8087878787604051610938929190613f2a565b610ce9611884565b808015610d23575060035473ffffffffffffffffffffffffffffffffffffffff168273ffffffffffffffffffffffffffffffffffffffff16145b15610d72576040517fe4a3c90b00000000000000000000000000000000000000000000000000000000815273ffffffffffffffffffffffffffffffffffffffff83166004820152602401610a5e565b610d7c8282611997565b610d96610d8b60035460d01c90565b60ff16600554611b45565b5050565b610da2611884565b610db18160ff16600554611b45565b5f610dba611937565b90507f2a855b929b9a53c6fb5b5ed248b27e502b709c088e036a5aa17620c8fc5085a9610de78260d01c90565b6040805160ff928316815291851660208301520160405180910390a17fffffffffff00ffffffffffffffffffffffffffffffffffffffffffffffffffff167aff000000000000000000000000000000000000000000000000000060d09290921b9190911617600355565b5f610fe87fb49257f7e8d779cd80e817476d9275284a108c8f10323504197183de384364fa610e836020850185613c0e565b610e936040860160208701613c0e565b6040860135610ea56060880188613f66565b604051602001610eb6929190613fca565b604080517fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe08184030181529190528051602090910120610ef96080890189613f66565b604051602001610f0a92919061400b565b604080517fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe0818403018152919052805160209091012060a089013560c08a0135610f5b6101008c0160e08d01614058565b60408051602081019a909a5273ffffffffffffffffffffffffffffffffffffffff988916908a0152959096166060880152608087019390935260a086019190915260c085015260e08401526101008084019290925267ffffffffffffffff166101208301528401356101408201526101600160405160208183030381529060405280519060200120611ba1565b92915050565b5f80805b848110156110365785858281811061100c5761100c61407f565b905060200281019061101e91906140ac565b61102c906020013583614115565b9150600101610ff2565b5061108b7e71486a45a1589aa15196c44815c5236ce454fdb6a7bb8676534287cc1c1f803083888860405160200161106f929190614128565b604051602081830303815290604052805190602001208761183d565b95945050505050565b5f6110a0878787610fee565b90505f6110ae828787611be8565b90506110c060808701606088016142a0565b156110dd576110dd8285856110d58560d01c90565b60ff16611c95565b7f800000000000000000000000000000000000000000000000000000000000000060a082811c600101901b79ffffffffffff0000000000000000000000000000000000000000167fffffffffffff000000000000ffffffffffffffffffffffffffffffffffffffff831617176003555f5b878110156111f157368989838181106111695761116961407f565b905060200281019061117b91906140ac565b90505f806111a78660a08c01356111956020870187613c0e565b602087013561089c6040890189613ec9565b91509150816111e65783816040517f5c0dee5d000000000000000000000000000000000000000000000000000000008152600401610a5e9291906142b9565b50505060010161114e565b5061121f600380547f7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff169055565b5050505050505050565b610a7081611ebd565b5f606061124186865f5f6117cf565b965096945050505050565b5f6109b8611f6c565b5f61125e6120a2565b90505f5f6028358060021a92508060031a8360061b60ac0181810181359150815f1a1583151516602084111760018560011a118236101717156112a85763a876ebd25f526004601cfd5b803603945060183560c01c60a05260043560601c60c052818360200360031b1c60e052602c3561012052835f1a610140528360011a6101605260203560c01c61018052604c356101a0528481610240375050505061130b8382606c60ac86612123565b505050565b5f365f5f5f365f61132189896124b6565b955095509550955095509550365f365f61133b86866125cd565b9296509094509250905082158061138957506040517f190100000000000000000000000000000000000000000000000000000000000081526002810189905260228101889052604290208e14155b156113a0575f9a50505050505050505050506107de565b604080517f9f5ad869d3280752d8fc4bc8f5703070af2fe7356f6826563fb22566d3dd9e8960208201527fc89efdaa54c0f20c7adf612882df0950f5a951637e0307cdcb4c672f298b8bc6818301524660608201523060808201525f60a08083018290528351808403909101815260c090920190925290611425868686868d876127e0565b90506114706114698b836040517f19010000000000000000000000000000000000000000000000000000000000008152600281019290925260228201526042902090565b8d8d61282e565b9c505050505050505050505050509392505050565b5f5f6114d5611492611f6c565b61149b87612883565b6040517f19010000000000000000000000000000000000000000000000000000000000008152600281019290925260228201526042902090565b905061108b81858561282e565b5f806115437f96469a0fe3b25026bfff2a5dea8b4c96c364177a184c94308471d10facacbe6461151560208c018c613c0e565b60208c013561152760408e018e613ec9565b604051611535929190613f2a565b60405180910390208c61183d565b915061154d611937565b905061155981896128b6565b5f5f6115668b8787612a26565b90925090505f61157c858b3560208d0135612cd6565b90508273ffffffffffffffffffffffffffffffffffffffff168173ffffffffffffffffffffffffffffffffffffffff1614611603576040517f8d2c08d100000000000000000000000000000000000000000000000000000000815273ffffffffffffffffffffffffffffffffffffffff808516600483015282166024820152604401610a5e565b61161360808c0160608d016142a0565b1561162857611628858a8a6110d58860d01c90565b8273ffffffffffffffffffffffffffffffffffffffff16857f46abbae4000cb8c8aae5b0e500ebfcfda0a615dadc612cc4ec2a52324df00cb38460405161166f91906142d1565b60405180910390a350505097509795505050505050565b5f60605f5a90508673ffffffffffffffffffffffffffffffffffffffff168686866040516116b5929190613f2a565b5f6040518083038185875af1925050503d805f81146116ef576040519150601f19603f3d011682016040523d82523d5f602084013e6116f4565b606091505b5090935091508215801561171e5750612710611711601083614308565b61171b9190614115565b5a105b15611755576040517f1c26714c00000000000000000000000000000000000000000000000000000000815260040160405180910390fd5b5f6004851015611765575f61177b565b61177260045f8789614340565b61177b91614367565b9050888a7f454140892bf4890594dc9214e95b53b9462997f18d73804b336dcf62cb34940e6117ab8b8589610950565b60408051918252602082018c90520160405180910390a35050965096945050505050565b5f6117d86120a2565b905067ffffffffffffffff60e43511600160c435111760ff60a4351167ffffffffffffffff6064351117171561180c575f5ffd5b60643560a0526040600460c03760a060846101203783856102403761183681856101248686612123565b5050505050565b5f5f6040518781528335602082015286604082015285606082015284608082015260a06020850160a08301376101409020905061187981611ba1565b979650505050505050565b5f5473ffffffffffffffffffffffffffffffffffffffff1633146118d6576040517f118cdaa7000000000000000000000000000000000000000000000000000000008152336004820152602401610a5e565b565b610a7081612d00565b60606109b87f0000000000000000000000000000000000000000000000000000000000000000612d31565b60606109b87f0000000000000000000000000000000000000000000000000000000000000000612d31565b6003547f8000000000000000000000000000000000000000000000000000000000000000811615611994576040517f3ee5aeb500000000000000000000000000000000000000000000000000000000815260040160405180910390fd5b90565b73ffffffffffffffffffffffffffffffffffffffff82166119e4576040517fd92e233d00000000000000000000000000000000000000000000000000000000815260040160405180910390fd5b73ffffffffffffffffffffffffffffffffffffffff82165f9081526004602052604090205481151560ff909116151503611a6a576040517f4e49558600000000000000000000000000000000000000000000000000000000815273ffffffffffffffffffffffffffffffffffffffff831660048201528115156024820152604401610a5e565b73ffffffffffffffffffffffffffffffffffffffff82165f90815260046020526040902080547fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff00168215801591909117909155611ada5760058054905f611ad0836143cd565b9190505550611aef565b60058054905f611ae983614404565b91905055505b8173ffffffffffffffffffffffffffffffffffffffff167f4b83d3ec19de62fd4bf3867e481d5031aef63b426a1172a6e7199334e504e2f882604051611b39911515815260200190565b60405180910390a25050565b8015611b5c57811580611b5757508082115b611b60565b8115155b15610d96576040517f7b7a98f10000000000000000000000000000000000000000000000000000000081526004810183905260248101829052604401610a5e565b5f610fe8611bad611f6c565b836040517f19010000000000000000000000000000000000000000000000000000000000008152600281019290925260228201526042902090565b5f611bf1611937565b9050611bfd8184612d6e565b5f611c0e8584356020860135612cd6565b90508173ffffffffffffffffffffffffffffffffffffffff168173ffffffffffffffffffffffffffffffffffffffff1614611c8d576040517f590f6edf00000000000000000000000000000000000000000000000000000000815273ffffffffffffffffffffffffffffffffffffffff82166004820152602401610a5e565b509392505050565b805f03611ca0575060015b80821015611ce4576040517f3ef8fc500000000000000000000000000000000000000000000000000000000081526004810183905260248101829052604401610a5e565b5f805b83811015611eb5575f611d3087878785818110611d0657611d0661407f565b9050604002015f0135888886818110611d2157611d2161407f565b90506040020160200135612cd6565b90508273ffffffffffffffffffffffffffffffffffffffff168173ffffffffffffffffffffffffffffffffffffffff1603611daf576040517f8ef2e40700000000000000000000000000000000000000000000000000000000815273ffffffffffffffffffffffffffffffffffffffff82166004820152602401610a5e565b8273ffffffffffffffffffffffffffffffffffffffff168173ffffffffffffffffffffffffffffffffffffffff161015611e35576040517ff9ca829600000000000000000000000000000000000000000000000000000000815273ffffffffffffffffffffffffffffffffffffffff808516600483015282166024820152604401610a5e565b73ffffffffffffffffffffffffffffffffffffffff81165f9081526004602052604090205460ff16611eab576040517fec37f14600000000000000000000000000000000000000000000000000000000815273ffffffffffffffffffffffffffffffffffffffff82166004820152602401610a5e565b9150600101611ce7565b505050505050565b611ec5611884565b6008805473ffffffffffffffffffffffffffffffffffffffff83167fffffffffffffffffffffffff00000000000000000000000000000000000000009091168117909155611f275f5473ffffffffffffffffffffffffffffffffffffffff1690565b73ffffffffffffffffffffffffffffffffffffffff167f38d16b8cac22d99fc7c124b9cd0de2d3fa1faef420bfe791d8c362d765e2270060405160405180910390a350565b5f3073ffffffffffffffffffffffffffffffffffffffff7f000000000000000000000000000000000000000000000000000000000000000016148015611fd157507f000000000000000000000000000000000000000000000000000000000000000046145b15611ffb57507f000000000000000000000000000000000000000000000000000000000000000090565b6109b8604080517f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f60208201527f0000000000000000000000000000000000000000000000000000000000000000918101919091527f000000000000000000000000000000000000000000000000000000000000000060608201524660808201523060a08201525f9060c00160405160208183030381529060405280519060200120905090565b7f00000000000000000000000000000000000000000000000000000000000000007f00000000000000000000000000000000000000000000000000000000000000007f000000000000000000000000000000000000000000000000000000000000000046821830821817801561211d5761211a611f6c565b93505b50505090565b6121ec565b5f5260208190526024601cfd5b5f5260205260408190526044601cfd5b5f60208301357f7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff81167f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a08111156121a4576121a48163d78bce0c612128565b838652601b8260ff1c0160208701528435604087015280606087015250505f5f5260205f60808660015afa6121d7575f5ffd5b505f51806107de5763f645eedf5f526004601cfd5b6003548060ff1c1561220557633ee5aeb55f526004601cfd5b6101c06102405f7e71486a45a1589aa15196c44815c5236ce454fdb6a7bb8676534287cc1c1f8060805287822061010052611901835288602084015261014060802060408401526042601e840120905060a051610140516101805165ffffffffffff8760a01c1680841461228257612282848263f917ffea612135565b50600182146122995761229982635558510d612128565b804211156122b0576122b0428263fda15cc8612135565b5050506122be838883612145565b73ffffffffffffffffffffffffffffffffffffffff851681146122e9576122e98163590f6edf612128565b5061016051156123a25760ff8460d01c168661230e5761230e815f633ef8fc50612135565b80612317575060015b8086101561232e5761232e8187633ef8fc50612135565b505f5f5b8681101561239f5761234a858260061b8a0185612145565b82810361235f5761235f81638ef2e407612128565b8281101561237657612376818463f9ca8296612135565b805f52600460205260405f2054612395576123958163ec37f146612128565b9150600101612332565b50505b65ffffffffffff60018560a01c011660a01b65ffffffffffff60a01b198516179350600160ff1b841760035560c05192503083036123e75763773f5c675f526004601cfd5b60e0515a5f5f8b8685895af1806124145761271060108304015a101561241457631c26714c5f526004601cfd5b60039687555f968b111561242a57845160e01c96505b8060381b8760401b8760601b17175f52826020526101a051847f454140892bf4890594dc9214e95b53b9462997f18d73804b336dcf62cb34940e60405fa33d965080608052505050505050604060a0528060c052805f60e03e5f60e08201526060601f82017fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe016016080f35b365f808083818660428110156124de57505f95508594508493508392508291508190506125c3565b7ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe81015f61250e8a83818e614340565b61251791614438565b60f01c90506042810183101561254257505f97508796508695508594508493508392506125c3915050565b5f81830390505f6020820390505f6020820390508d8d5f90839261256893929190614340565b9b509b508d8d8290849261257e93929190614340565b6125879161449d565b99508d8d8390859261259b93929190614340565b6125a49161449d565b98508d8d849087926125b893929190614340565b975097505050505050505b9295509295509295565b365f8181858580156127c8577f290000000000000000000000000000000000000000000000000000000000000082826126076001826144d9565b8181106126165761261661407f565b9050013560f81c60f81b7effffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff191603612703575f5b818110156126fd575f8383838181106126645761266461407f565b909101357fff00000000000000000000000000000000000000000000000000000000000000169150507fd80000000000000000000000000000000000000000000000000000000000000081016126e057815f036126c157506126fd565b6126cd825f8587614340565b8b8b9750975097509750505050506127d7565b6126e981612da6565b156126f457506126fd565b50600101612649565b506127c8565b805b80156127c6575f83836127196001856144d9565b8181106127285761272861407f565b909101357fff00000000000000000000000000000000000000000000000000000000000000169150507fd70000000000000000000000000000000000000000000000000000000000000081016127a15761278483838187614340565b612790845f8789614340565b9750975097509750505050506127d7565b6127aa81612da6565b156127b557506127c6565b506127bf81614404565b9050612705565b505b5f805f80955095509550955050505b92959194509250565b5f8515612822576127f387878787612f00565b8383604051602001612807939291906144ec565b60405160208183030381529060405280519060200120611879565b5f979650505050505050565b5f5f5f61283c868686612f38565b5090925090505f81600381111561285557612855614513565b1480156109465750505f5473ffffffffffffffffffffffffffffffffffffffff918216911614949350505050565b7f983e65e5148e570cd828ead231ee759a8d7958721a768f93bc4483ba005c32de5f908152602082905260408120610fe8565b60d882901c647fffffffff16806128d06020840184614058565b67ffffffffffffffff161415806128f55750647fffffffff8167ffffffffffffffff16145b1561294e57806129086020840184614058565b6040517ff917ffea00000000000000000000000000000000000000000000000000000000815267ffffffffffffffff928316600482015291166024820152604401610a5e565b60016129606060840160408501613d17565b60ff16146129b0576129786060830160408401613d17565b6040517f5558510d00000000000000000000000000000000000000000000000000000000815260ff9091166004820152602401610a5e565b6129c060a0830160808401614058565b67ffffffffffffffff1642111561130b576129e160a0830160808401614058565b6040517ffda15cc800000000000000000000000000000000000000000000000000000000815267ffffffffffffffff9091166004820152426024820152604401610a5e565b5f606082808303612a63576040517f103a9ca200000000000000000000000000000000000000000000000000000000815260040160405180910390fd5b6004811115612aa7576040517f16f3d10800000000000000000000000000000000000000000000000000000000815260048181018390526024820152604401610a5e565b8067ffffffffffffffff811115612ac057612ac0613f39565b604051908082528060200260200182016040528015612ae9578160200160208202803683370190505b509150612b0a5f5473ffffffffffffffffffffffffffffffffffffffff1690565b92505f80612b1b6040890189613ec9565b91505f90508115612be8576004821015612b64576040517f22b5f05600000000000000000000000000000000000000000000000000000000815260048101839052602401610a5e565b612b7160408a018a613ec9565b612b7f916004915f91614340565b612b8891614367565b90507fffffffff0000000000000000000000000000000000000000000000000000000081165f03612be8576040517f22b5f05600000000000000000000000000000000000000000000000000000000815260048101839052602401610a5e565b5f5b84811015612cc9575f612c22828b8b85818110612c0957612c0961407f565b9050602002810190612c1b91906140ac565b8a88612f7f565b9050612c5d818b8b85818110612c3a57612c3a61407f565b9050602002810190612c4c91906140ac565b612c569080614540565b8d86613134565b80878381518110612c7057612c7061407f565b602002602001018181525050809450898983818110612c9157612c9161407f565b9050602002810190612ca391906140ac565b612cad9080614540565b612cbe906040810190602001613c0e565b975050600101612bea565b5050505050935093915050565b5f5f5f5f612ce58787876133cd565b925092509250612cf58282613418565b509095945050505050565b600880547fffffffffffffffffffffffff0000000000000000000000000000000000000000169055610a708161351b565b60605f612d3d8361358f565b6040805160208082528183019092529192505f91906020820181803683375050509182525060208101929092525090565b60a082901c65ffffffffffff1680612d896020840184614058565b67ffffffffffffffff161461294e57806129086020840184614058565b5f7fff0000000000000000000000000000000000000000000000000000000000000082161580612e1757507fff0000000000000000000000000000000000000000000000000000000000000082167f2000000000000000000000000000000000000000000000000000000000000000145b80612e6357507fff0000000000000000000000000000000000000000000000000000000000000082167f2c00000000000000000000000000000000000000000000000000000000000000145b80612eaf57507fff0000000000000000000000000000000000000000000000000000000000000082167f2800000000000000000000000000000000000000000000000000000000000000145b80610fe857507fff0000000000000000000000000000000000000000000000000000000000000082167f29000000000000000000000000000000000000000000000000000000000000001492915050565b5f84848484604051602001612f189493929190614572565b604051602081830303815290604052805190602001209050949350505050565b5f80806041849003612f6c578435602086013560408701355f1a612f5e898285856135cf565b955095509550505050612f76565b505f915060029050825b93509350939050565b5f36612f8b8580614540565b9050612f9681610e51565b915073ffffffffffffffffffffffffffffffffffffffff8416612fbc6020830183613c0e565b73ffffffffffffffffffffffffffffffffffffffff161461303f578584612fe66020840184613c0e565b6040517f6d266bec000000000000000000000000000000000000000000000000000000008152600481019390935273ffffffffffffffffffffffffffffffffffffffff9182166024840152166044820152606401610a5e565b8281604001351461309057604080517fc7ed69470000000000000000000000000000000000000000000000000000000081526004810188905260248101859052908201356044820152606401610a5e565b5f6130a48360208801356040890135612cd6565b90508473ffffffffffffffffffffffffffffffffffffffff168173ffffffffffffffffffffffffffffffffffffffff161461312a576040517f80dcbe040000000000000000000000000000000000000000000000000000000081526004810188905273ffffffffffffffffffffffffffffffffffffffff82166024820152604401610a5e565b5050949350505050565b5f6131426020840184613c0e565b5f868152600660209081526040909120549192508401359060ff1615613197576040517f9929bd1700000000000000000000000000000000000000000000000000000000815260048101879052602401610a5e565b6131a8610100860160e08701614058565b67ffffffffffffffff1642111561321057856131cb610100870160e08801614058565b6040517fdf04f323000000000000000000000000000000000000000000000000000000008152600481019290925267ffffffffffffffff166024820152604401610a5e565b6132266132206060870187613f66565b846136c2565b61327b576040517f22cb699d0000000000000000000000000000000000000000000000000000000081526004810187905273ffffffffffffffffffffffffffffffffffffffff83166024820152604401610a5e565b61329161328b6080870187613f66565b85613742565b6132f2576040517f92ac9f76000000000000000000000000000000000000000000000000000000008152600481018790527fffffffff0000000000000000000000000000000000000000000000000000000084166024820152604401610a5e565b8460a00135811115613344576040517f70e33c92000000000000000000000000000000000000000000000000000000008152600481018790526024810182905260a08601356044820152606401610a5e565b8015611eb5575f86815260076020526040812054613363908390614115565b90508560c001358111156133b7576040517fa62e67b7000000000000000000000000000000000000000000000000000000008152600481018890526024810182905260c08701356044820152606401610a5e565b5f87815260076020526040902055505050505050565b5f80807f7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff8416601b60ff86901c01613407888289856135cf565b945094509450505093509350939050565b5f82600381111561342b5761342b614513565b03613434575050565b600182600381111561344857613448614513565b0361347f576040517ff645eedf00000000000000000000000000000000000000000000000000000000815260040160405180910390fd5b600282600381111561349357613493614513565b036134cd576040517ffce698f700000000000000000000000000000000000000000000000000000000815260048101829052602401610a5e565b60038260038111156134e1576134e1614513565b03610d96576040517fd78bce0c00000000000000000000000000000000000000000000000000000000815260048101829052602401610a5e565b5f805473ffffffffffffffffffffffffffffffffffffffff8381167fffffffffffffffffffffffff0000000000000000000000000000000000000000831681178455604051919092169283917f8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e09190a35050565b5f60ff8216601f811115610fe8576040517fb3512b0c00000000000000000000000000000000000000000000000000000000815260040160405180910390fd5b5f80807f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a084111561360857505f915060039050826136b8565b604080515f808252602082018084528a905260ff891692820192909252606081018790526080810186905260019060a0016020604051602081039080840390855afa158015613659573d5f5f3e3d5ffd5b50506040517fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe0015191505073ffffffffffffffffffffffffffffffffffffffff81166136af57505f9250600191508290506136b8565b92505f91508190505b9450945094915050565b5f805b83811015613738578273ffffffffffffffffffffffffffffffffffffffff168585838181106136f6576136f661407f565b905060200201602081019061370b9190613c0e565b73ffffffffffffffffffffffffffffffffffffffff16036137305760019150506107de565b6001016136c5565b505f949350505050565b5f805b83811015613738577fffffffff0000000000000000000000000000000000000000000000000000000083168585838181106137825761378261407f565b9050602002016020810190613797919061462c565b7fffffffff0000000000000000000000000000000000000000000000000000000016036137c85760019150506107de565b600101613745565b5f81518084528060208401602086015e5f6020828601015260207fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe0601f83011685010191505092915050565b8215158152604060208201525f61383660408301846137d0565b949350505050565b5f5f83601f84011261384e575f5ffd5b50813567ffffffffffffffff811115613865575f5ffd5b60208301915083602082850101111561387c575f5ffd5b9250929050565b5f5f5f60408486031215613895575f5ffd5b83359250602084013567ffffffffffffffff8111156138b2575f5ffd5b6138be8682870161383e565b9497909650939450505050565b5f60c082840312156138db575f5ffd5b50919050565b5f604082840312156138db575f5ffd5b5f5f83601f840112613901575f5ffd5b50813567ffffffffffffffff811115613918575f5ffd5b6020830191508360208260061b850101111561387c575f5ffd5b5f5f83601f840112613942575f5ffd5b50813567ffffffffffffffff811115613959575f5ffd5b6020830191508360208260051b850101111561387c575f5ffd5b5f5f5f5f5f5f5f610160888a03121561398a575f5ffd5b873567ffffffffffffffff8111156139a0575f5ffd5b88016060818b0312156139b1575f5ffd5b96506139c08960208a016138cb565b95506139cf8960e08a016138e1565b945061012088013567ffffffffffffffff8111156139eb575f5ffd5b6139f78a828b016138f1565b90955093505061014088013567ffffffffffffffff811115613a17575f5ffd5b613a238a828b01613932565b989b979a50959850939692959293505050565b803573ffffffffffffffffffffffffffffffffffffffff81168114613a59575f5ffd5b919050565b5f5f5f5f5f5f5f5f610180898b031215613a76575f5ffd5b613a7f89613a36565b975060208901359650604089013567ffffffffffffffff811115613aa1575f5ffd5b613aad8b828c0161383e565b9097509550613ac190508a60608b016138cb565b9350613ad18a6101208b016138e1565b925061016089013567ffffffffffffffff811115613aed575f5ffd5b613af98b828c016138f1565b999c989b5096995094979396929594505050565b5f5f5f5f5f6101208688031215613b22575f5ffd5b613b2b86613a36565b945060208601359350604086013567ffffffffffffffff811115613b4d575f5ffd5b613b598882890161383e565b9094509250613b6d905087606088016138cb565b90509295509295909350565b80357fffffffff0000000000000000000000000000000000000000000000000000000081168114613a59575f5ffd5b80358015158114613a59575f5ffd5b5f5f5f60608486031215613bc9575f5ffd5b613bd284613a36565b9250613be060208501613b79565b9150613bee60408501613ba8565b90509250925092565b5f60208284031215613c07575f5ffd5b5035919050565b5f60208284031215613c1e575f5ffd5b6107de82613a36565b7fff000000000000000000000000000000000000000000000000000000000000008816815260e060208201525f613c6160e08301896137d0565b8281036040840152613c7381896137d0565b6060840188905273ffffffffffffffffffffffffffffffffffffffff8716608085015260a0840186905283810360c0850152845180825260208087019350909101905f5b81811015613cd5578351835260209384019390920191600101613cb7565b50909b9a5050505050505050505050565b5f5f60408385031215613cf7575f5ffd5b613d0083613a36565b9150613d0e60208401613ba8565b90509250929050565b5f60208284031215613d27575f5ffd5b813560ff811681146107de575f5ffd5b5f60208284031215613d47575f5ffd5b813567ffffffffffffffff811115613d5d575f5ffd5b820161012081850312156107de575f5ffd5b5f5f5f60e08486031215613d81575f5ffd5b833567ffffffffffffffff811115613d97575f5ffd5b613da386828701613932565b9094509250613bee905085602086016138cb565b5f5f5f5f5f5f6101408789031215613dcd575f5ffd5b863567ffffffffffffffff811115613de3575f5ffd5b613def89828a01613932565b9097509550613e03905088602089016138cb565b9350613e128860e089016138e1565b925061012087013567ffffffffffffffff811115613e2e575f5ffd5b613e3a89828a016138f1565b979a9699509497509295939492505050565b5f5f5f5f5f5f6101608789031215613e62575f5ffd5b613e6b87613a36565b955060208701359450604087013567ffffffffffffffff811115613e8d575f5ffd5b613e9989828a0161383e565b9095509350613ead905088606089016138cb565b9150613ebd8861012089016138e1565b90509295509295509295565b5f5f83357fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe1843603018112613efc575f5ffd5b83018035915067ffffffffffffffff821115613f16575f5ffd5b60200191503681900382131561387c575f5ffd5b818382375f9101908152919050565b7f4e487b71000000000000000000000000000000000000000000000000000000005f52604160045260245ffd5b5f5f83357fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe1843603018112613f99575f5ffd5b83018035915067ffffffffffffffff821115613fb3575f5ffd5b6020019150600581901b360382131561387c575f5ffd5b5f8184825b85811015612cf55773ffffffffffffffffffffffffffffffffffffffff613ff583613a36565b1683526020928301929190910190600101613fcf565b5f8184825b85811015612cf5577fffffffff0000000000000000000000000000000000000000000000000000000061404283613b79565b1683526020928301929190910190600101614010565b5f60208284031215614068575f5ffd5b813567ffffffffffffffff811681146107de575f5ffd5b7f4e487b71000000000000000000000000000000000000000000000000000000005f52603260045260245ffd5b5f82357fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa18336030181126140de575f5ffd5b9190910192915050565b7f4e487b71000000000000000000000000000000000000000000000000000000005f52601160045260245ffd5b80820180821115610fe857610fe86140e8565b602080825281018290525f6040600584901b8301810190830185837fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa136839003015b87821015614293577fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc087860301845282358181126141a6575f5ffd5b890173ffffffffffffffffffffffffffffffffffffffff6141c682613a36565b168652602081810135908701526040810135368290037fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe1018112614208575f5ffd5b0160208101903567ffffffffffffffff811115614223575f5ffd5b803603821315614231575f5ffd5b60606040880152806060880152808260808901375f6080828901015260807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe0601f8301168801019650505060208301925060208401935060018201915061416a565b5092979650505050505050565b5f602082840312156142b0575f5ffd5b6107de82613ba8565b828152604060208201525f61383660408301846137d0565b602080825282518282018190525f918401906040840190835b81811015612cf55783518352602093840193909201916001016142ea565b5f8261433b577f4e487b71000000000000000000000000000000000000000000000000000000005f52601260045260245ffd5b500490565b5f5f8585111561434e575f5ffd5b8386111561435a575f5ffd5b5050820193919092039150565b80357fffffffff0000000000000000000000000000000000000000000000000000000081169060048410156143c6577fffffffff00000000000000000000000000000000000000000000000000000000808560040360031b1b82161691505b5092915050565b5f7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff82036143fd576143fd6140e8565b5060010190565b5f81614412576144126140e8565b507fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff0190565b80357fffff00000000000000000000000000000000000000000000000000000000000081169060028410156143c6577fffff000000000000000000000000000000000000000000000000000000000000808560020360031b1b82161691505092915050565b80356020831015610fe8577fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff602084900360031b1b1692915050565b81810381811115610fe857610fe86140e8565b8381528260208201525f82518060208501604085015e5f9201604001918252509392505050565b7f4e487b71000000000000000000000000000000000000000000000000000000005f52602160045260245ffd5b5f82357ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffee18336030181126140de575f5ffd5b7f5479706564446174615369676e2800000000000000000000000000000000000081528385600e8301375f8482017f20636f6e74656e74732c737472696e67206e616d652c737472696e6720766572600e8201527f73696f6e2c75696e7432353620636861696e49642c6164647265737320766572602e8201527f696679696e67436f6e74726163742c627974657333322073616c742900000000604e8201528385606a8301375f9301606a019283525090949350505050565b5f6020828403121561463c575f5ffd5b6107de82613b79568b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f",
}

// PaceSmartAccount is an auto generated Go binding around an Ethereum contract.
type PaceSmartAccount struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *PaceSmartAccount) GetABI() abi.ABI {
	return c.abi
}

// NewPaceSmartAccount creates a new instance of PaceSmartAccount.
func NewPaceSmartAccount() *PaceSmartAccount {
	parsed, err := PaceSmartAccountMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &PaceSmartAccount{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *PaceSmartAccount) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address owner_, address policySigner_, address[] approvers_, uint8 threshold_) returns()
func (paceSmartAccount *PaceSmartAccount) PackConstructor(owner_ common.Address, policySigner_ common.Address, approvers_ []common.Address, threshold_ uint8) []byte {
	enc, err := paceSmartAccount.abi.Pack("", owner_, policySigner_, approvers_, threshold_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackDECISIONALLOW is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x64029252.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function DECISION_ALLOW() view returns(uint8)
func (paceSmartAccount *PaceSmartAccount) PackDECISIONALLOW() []byte {
	enc, err := paceSmartAccount.abi.Pack("DECISION_ALLOW")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDECISIONALLOW is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x64029252.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function DECISION_ALLOW() view returns(uint8)
func (paceSmartAccount *PaceSmartAccount) TryPackDECISIONALLOW() ([]byte, error) {
	return paceSmartAccount.abi.Pack("DECISION_ALLOW")
}

// UnpackDECISIONALLOW is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x64029252.
//
// Solidity: function DECISION_ALLOW() view returns(uint8)
func (paceSmartAccount *PaceSmartAccount) UnpackDECISIONALLOW(data []byte) (uint8, error) {
	out, err := paceSmartAccount.abi.Unpack("DECISION_ALLOW", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackDELEGATEDPDRTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8e8eba4e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function DELEGATED_PDR_TYPEHASH() view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) PackDELEGATEDPDRTYPEHASH() []byte {
	enc, err := paceSmartAccount.abi.Pack("DELEGATED_PDR_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDELEGATEDPDRTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8e8eba4e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function DELEGATED_PDR_TYPEHASH() view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) TryPackDELEGATEDPDRTYPEHASH() ([]byte, error) {
	return paceSmartAccount.abi.Pack("DELEGATED_PDR_TYPEHASH")
}

// UnpackDELEGATEDPDRTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8e8eba4e.
//
// Solidity: function DELEGATED_PDR_TYPEHASH() view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) UnpackDELEGATEDPDRTYPEHASH(data []byte) ([32]byte, error) {
	out, err := paceSmartAccount.abi.Unpack("DELEGATED_PDR_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackDELEGATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe7a324dc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function DELEGATION_TYPEHASH() view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) PackDELEGATIONTYPEHASH() []byte {
	enc, err := paceSmartAccount.abi.Pack("DELEGATION_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDELEGATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe7a324dc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function DELEGATION_TYPEHASH() view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) TryPackDELEGATIONTYPEHASH() ([]byte, error) {
	return paceSmartAccount.abi.Pack("DELEGATION_TYPEHASH")
}

// UnpackDELEGATIONTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe7a324dc.
//
// Solidity: function DELEGATION_TYPEHASH() view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) UnpackDELEGATIONTYPEHASH(data []byte) ([32]byte, error) {
	out, err := paceSmartAccount.abi.Unpack("DELEGATION_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackMAXDELEGATIONDEPTH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7969a713.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_DELEGATION_DEPTH() view returns(uint256)
func (paceSmartAccount *PaceSmartAccount) PackMAXDELEGATIONDEPTH() []byte {
	enc, err := paceSmartAccount.abi.Pack("MAX_DELEGATION_DEPTH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXDELEGATIONDEPTH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7969a713.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_DELEGATION_DEPTH() view returns(uint256)
func (paceSmartAccount *PaceSmartAccount) TryPackMAXDELEGATIONDEPTH() ([]byte, error) {
	return paceSmartAccount.abi.Pack("MAX_DELEGATION_DEPTH")
}

// UnpackMAXDELEGATIONDEPTH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7969a713.
//
// Solidity: function MAX_DELEGATION_DEPTH() view returns(uint256)
func (paceSmartAccount *PaceSmartAccount) UnpackMAXDELEGATIONDEPTH(data []byte) (*big.Int, error) {
	out, err := paceSmartAccount.abi.Unpack("MAX_DELEGATION_DEPTH", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackPDRTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42a29460.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function PDR_TYPEHASH() view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) PackPDRTYPEHASH() []byte {
	enc, err := paceSmartAccount.abi.Pack("PDR_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPDRTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42a29460.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function PDR_TYPEHASH() view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) TryPackPDRTYPEHASH() ([]byte, error) {
	return paceSmartAccount.abi.Pack("PDR_TYPEHASH")
}

// UnpackPDRTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x42a29460.
//
// Solidity: function PDR_TYPEHASH() view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) UnpackPDRTYPEHASH(data []byte) ([32]byte, error) {
	out, err := paceSmartAccount.abi.Unpack("PDR_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackAcceptOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x79ba5097.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function acceptOwnership() returns()
func (paceSmartAccount *PaceSmartAccount) PackAcceptOwnership() []byte {
	enc, err := paceSmartAccount.abi.Pack("acceptOwnership")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAcceptOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x79ba5097.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function acceptOwnership() returns()
func (paceSmartAccount *PaceSmartAccount) TryPackAcceptOwnership() ([]byte, error) {
	return paceSmartAccount.abi.Pack("acceptOwnership")
}

// PackApproverCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x128e9be6.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function approverCount() view returns(uint256)
func (paceSmartAccount *PaceSmartAccount) PackApproverCount() []byte {
	enc, err := paceSmartAccount.abi.Pack("approverCount")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackApproverCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x128e9be6.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function approverCount() view returns(uint256)
func (paceSmartAccount *PaceSmartAccount) TryPackApproverCount() ([]byte, error) {
	return paceSmartAccount.abi.Pack("approverCount")
}

// UnpackApproverCount is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x128e9be6.
//
// Solidity: function approverCount() view returns(uint256)
func (paceSmartAccount *PaceSmartAccount) UnpackApproverCount(data []byte) (*big.Int, error) {
	out, err := paceSmartAccount.abi.Unpack("approverCount", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackDelegatedNonce is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x232c3961.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function delegatedNonce() view returns(uint64)
func (paceSmartAccount *PaceSmartAccount) PackDelegatedNonce() []byte {
	enc, err := paceSmartAccount.abi.Pack("delegatedNonce")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDelegatedNonce is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x232c3961.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function delegatedNonce() view returns(uint64)
func (paceSmartAccount *PaceSmartAccount) TryPackDelegatedNonce() ([]byte, error) {
	return paceSmartAccount.abi.Pack("delegatedNonce")
}

// UnpackDelegatedNonce is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x232c3961.
//
// Solidity: function delegatedNonce() view returns(uint64)
func (paceSmartAccount *PaceSmartAccount) UnpackDelegatedNonce(data []byte) (uint64, error) {
	out, err := paceSmartAccount.abi.Unpack("delegatedNonce", data)
	if err != nil {
		return *new(uint64), err
	}
	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)
	return out0, nil
}

// PackDomainSeparator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf698da25.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) PackDomainSeparator() []byte {
	enc, err := paceSmartAccount.abi.Pack("domainSeparator")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDomainSeparator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf698da25.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) TryPackDomainSeparator() ([]byte, error) {
	return paceSmartAccount.abi.Pack("domainSeparator")
}

// UnpackDomainSeparator is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf698da25.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) UnpackDomainSeparator(data []byte) ([32]byte, error) {
	out, err := paceSmartAccount.abi.Unpack("domainSeparator", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackEip712Domain is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84b0196e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (paceSmartAccount *PaceSmartAccount) PackEip712Domain() []byte {
	enc, err := paceSmartAccount.abi.Pack("eip712Domain")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackEip712Domain is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84b0196e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (paceSmartAccount *PaceSmartAccount) TryPackEip712Domain() ([]byte, error) {
	return paceSmartAccount.abi.Pack("eip712Domain")
}

// Eip712DomainOutput serves as a container for the return parameters of contract
// method Eip712Domain.
type Eip712DomainOutput struct {
	Fields            [1]byte
	Name              string
	Version           string
	ChainId           *big.Int
	VerifyingContract common.Address
	Salt              [32]byte
	Extensions        []*big.Int
}

// UnpackEip712Domain is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x84b0196e.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (paceSmartAccount *PaceSmartAccount) UnpackEip712Domain(data []byte) (Eip712DomainOutput, error) {
	out, err := paceSmartAccount.abi.Unpack("eip712Domain", data)
	outstruct := new(Eip712DomainOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Fields = *abi.ConvertType(out[0], new([1]byte)).(*[1]byte)
	outstruct.Name = *abi.ConvertType(out[1], new(string)).(*string)
	outstruct.Version = *abi.ConvertType(out[2], new(string)).(*string)
	outstruct.ChainId = abi.ConvertType(out[3], new(big.Int)).(*big.Int)
	outstruct.VerifyingContract = *abi.ConvertType(out[4], new(common.Address)).(*common.Address)
	outstruct.Salt = *abi.ConvertType(out[5], new([32]byte)).(*[32]byte)
	outstruct.Extensions = *abi.ConvertType(out[6], new([]*big.Int)).(*[]*big.Int)
	return *outstruct, nil
}

// PackExecute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf4968a0c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function execute(address target, uint256 value, bytes data, (uint64,bytes32,uint8,bool,uint64,bytes32) t, (bytes32,bytes32) policySig) payable returns(bool success, bytes result)
func (paceSmartAccount *PaceSmartAccount) PackExecute(target common.Address, value *big.Int, data []byte, t IPaceSmartAccountPDRTerms, policySig IPaceSmartAccountSig) []byte {
	enc, err := paceSmartAccount.abi.Pack("execute", target, value, data, t, policySig)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExecute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf4968a0c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function execute(address target, uint256 value, bytes data, (uint64,bytes32,uint8,bool,uint64,bytes32) t, (bytes32,bytes32) policySig) payable returns(bool success, bytes result)
func (paceSmartAccount *PaceSmartAccount) TryPackExecute(target common.Address, value *big.Int, data []byte, t IPaceSmartAccountPDRTerms, policySig IPaceSmartAccountSig) ([]byte, error) {
	return paceSmartAccount.abi.Pack("execute", target, value, data, t, policySig)
}

// ExecuteOutput serves as a container for the return parameters of contract
// method Execute.
type ExecuteOutput struct {
	Success bool
	Result  []byte
}

// UnpackExecute is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf4968a0c.
//
// Solidity: function execute(address target, uint256 value, bytes data, (uint64,bytes32,uint8,bool,uint64,bytes32) t, (bytes32,bytes32) policySig) payable returns(bool success, bytes result)
func (paceSmartAccount *PaceSmartAccount) UnpackExecute(data []byte) (ExecuteOutput, error) {
	out, err := paceSmartAccount.abi.Unpack("execute", data)
	outstruct := new(ExecuteOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Success = *abi.ConvertType(out[0], new(bool)).(*bool)
	outstruct.Result = *abi.ConvertType(out[1], new([]byte)).(*[]byte)
	return *outstruct, nil
}

// PackExecuteBatch is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf0780608.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function executeBatch((address,uint256,bytes)[] calls, (uint64,bytes32,uint8,bool,uint64,bytes32) t, (bytes32,bytes32) policySig, (bytes32,bytes32)[] approvals) payable returns()
func (paceSmartAccount *PaceSmartAccount) PackExecuteBatch(calls []IPaceSmartAccountCall, t IPaceSmartAccountPDRTerms, policySig IPaceSmartAccountSig, approvals []IPaceSmartAccountSig) []byte {
	enc, err := paceSmartAccount.abi.Pack("executeBatch", calls, t, policySig, approvals)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExecuteBatch is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf0780608.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function executeBatch((address,uint256,bytes)[] calls, (uint64,bytes32,uint8,bool,uint64,bytes32) t, (bytes32,bytes32) policySig, (bytes32,bytes32)[] approvals) payable returns()
func (paceSmartAccount *PaceSmartAccount) TryPackExecuteBatch(calls []IPaceSmartAccountCall, t IPaceSmartAccountPDRTerms, policySig IPaceSmartAccountSig, approvals []IPaceSmartAccountSig) ([]byte, error) {
	return paceSmartAccount.abi.Pack("executeBatch", calls, t, policySig, approvals)
}

// PackExecuteCompactDFki0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0000008d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function executeCompact_dFki0() payable returns(bool success, bytes result)
func (paceSmartAccount *PaceSmartAccount) PackExecuteCompactDFki0() []byte {
	enc, err := paceSmartAccount.abi.Pack("executeCompact_dFki0")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExecuteCompactDFki0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0000008d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function executeCompact_dFki0() payable returns(bool success, bytes result)
func (paceSmartAccount *PaceSmartAccount) TryPackExecuteCompactDFki0() ([]byte, error) {
	return paceSmartAccount.abi.Pack("executeCompact_dFki0")
}

// ExecuteCompactDFki0Output serves as a container for the return parameters of contract
// method ExecuteCompactDFki0.
type ExecuteCompactDFki0Output struct {
	Success bool
	Result  []byte
}

// UnpackExecuteCompactDFki0 is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x0000008d.
//
// Solidity: function executeCompact_dFki0() payable returns(bool success, bytes result)
func (paceSmartAccount *PaceSmartAccount) UnpackExecuteCompactDFki0(data []byte) (ExecuteCompactDFki0Output, error) {
	out, err := paceSmartAccount.abi.Unpack("executeCompact_dFki0", data)
	outstruct := new(ExecuteCompactDFki0Output)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Success = *abi.ConvertType(out[0], new(bool)).(*bool)
	outstruct.Result = *abi.ConvertType(out[1], new([]byte)).(*[]byte)
	return *outstruct, nil
}

// PackExecuteDelegated is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1c428c46.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function executeDelegated((address,uint256,bytes) c, (uint64,bytes32,uint8,bool,uint64,bytes32) t, (bytes32,bytes32) delegateSig, (bytes32,bytes32)[] approvals, ((address,address,bytes32,address[],bytes4[],uint256,uint256,uint64,bytes32),(bytes32,bytes32))[] chain) payable returns(bool success, bytes result)
func (paceSmartAccount *PaceSmartAccount) PackExecuteDelegated(c IPaceSmartAccountCall, t IPaceSmartAccountPDRTerms, delegateSig IPaceSmartAccountSig, approvals []IPaceSmartAccountSig, chain []IPaceSmartAccountSignedDelegation) []byte {
	enc, err := paceSmartAccount.abi.Pack("executeDelegated", c, t, delegateSig, approvals, chain)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExecuteDelegated is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1c428c46.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function executeDelegated((address,uint256,bytes) c, (uint64,bytes32,uint8,bool,uint64,bytes32) t, (bytes32,bytes32) delegateSig, (bytes32,bytes32)[] approvals, ((address,address,bytes32,address[],bytes4[],uint256,uint256,uint64,bytes32),(bytes32,bytes32))[] chain) payable returns(bool success, bytes result)
func (paceSmartAccount *PaceSmartAccount) TryPackExecuteDelegated(c IPaceSmartAccountCall, t IPaceSmartAccountPDRTerms, delegateSig IPaceSmartAccountSig, approvals []IPaceSmartAccountSig, chain []IPaceSmartAccountSignedDelegation) ([]byte, error) {
	return paceSmartAccount.abi.Pack("executeDelegated", c, t, delegateSig, approvals, chain)
}

// ExecuteDelegatedOutput serves as a container for the return parameters of contract
// method ExecuteDelegated.
type ExecuteDelegatedOutput struct {
	Success bool
	Result  []byte
}

// UnpackExecuteDelegated is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1c428c46.
//
// Solidity: function executeDelegated((address,uint256,bytes) c, (uint64,bytes32,uint8,bool,uint64,bytes32) t, (bytes32,bytes32) delegateSig, (bytes32,bytes32)[] approvals, ((address,address,bytes32,address[],bytes4[],uint256,uint256,uint64,bytes32),(bytes32,bytes32))[] chain) payable returns(bool success, bytes result)
func (paceSmartAccount *PaceSmartAccount) UnpackExecuteDelegated(data []byte) (ExecuteDelegatedOutput, error) {
	out, err := paceSmartAccount.abi.Unpack("executeDelegated", data)
	outstruct := new(ExecuteDelegatedOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Success = *abi.ConvertType(out[0], new(bool)).(*bool)
	outstruct.Result = *abi.ConvertType(out[1], new([]byte)).(*[]byte)
	return *outstruct, nil
}

// PackExecuteWithApprovals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1fe14494.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function executeWithApprovals(address target, uint256 value, bytes data, (uint64,bytes32,uint8,bool,uint64,bytes32) t, (bytes32,bytes32) policySig, (bytes32,bytes32)[] approvals) payable returns(bool success, bytes result)
func (paceSmartAccount *PaceSmartAccount) PackExecuteWithApprovals(target common.Address, value *big.Int, data []byte, t IPaceSmartAccountPDRTerms, policySig IPaceSmartAccountSig, approvals []IPaceSmartAccountSig) []byte {
	enc, err := paceSmartAccount.abi.Pack("executeWithApprovals", target, value, data, t, policySig, approvals)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExecuteWithApprovals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1fe14494.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function executeWithApprovals(address target, uint256 value, bytes data, (uint64,bytes32,uint8,bool,uint64,bytes32) t, (bytes32,bytes32) policySig, (bytes32,bytes32)[] approvals) payable returns(bool success, bytes result)
func (paceSmartAccount *PaceSmartAccount) TryPackExecuteWithApprovals(target common.Address, value *big.Int, data []byte, t IPaceSmartAccountPDRTerms, policySig IPaceSmartAccountSig, approvals []IPaceSmartAccountSig) ([]byte, error) {
	return paceSmartAccount.abi.Pack("executeWithApprovals", target, value, data, t, policySig, approvals)
}

// ExecuteWithApprovalsOutput serves as a container for the return parameters of contract
// method ExecuteWithApprovals.
type ExecuteWithApprovalsOutput struct {
	Success bool
	Result  []byte
}

// UnpackExecuteWithApprovals is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1fe14494.
//
// Solidity: function executeWithApprovals(address target, uint256 value, bytes data, (uint64,bytes32,uint8,bool,uint64,bytes32) t, (bytes32,bytes32) policySig, (bytes32,bytes32)[] approvals) payable returns(bool success, bytes result)
func (paceSmartAccount *PaceSmartAccount) UnpackExecuteWithApprovals(data []byte) (ExecuteWithApprovalsOutput, error) {
	out, err := paceSmartAccount.abi.Unpack("executeWithApprovals", data)
	outstruct := new(ExecuteWithApprovalsOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Success = *abi.ConvertType(out[0], new(bool)).(*bool)
	outstruct.Result = *abi.ConvertType(out[1], new([]byte)).(*[]byte)
	return *outstruct, nil
}

// PackHashBatch is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xec4c3fad.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function hashBatch((address,uint256,bytes)[] calls, (uint64,bytes32,uint8,bool,uint64,bytes32) t) view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) PackHashBatch(calls []IPaceSmartAccountCall, t IPaceSmartAccountPDRTerms) []byte {
	enc, err := paceSmartAccount.abi.Pack("hashBatch", calls, t)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackHashBatch is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xec4c3fad.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function hashBatch((address,uint256,bytes)[] calls, (uint64,bytes32,uint8,bool,uint64,bytes32) t) view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) TryPackHashBatch(calls []IPaceSmartAccountCall, t IPaceSmartAccountPDRTerms) ([]byte, error) {
	return paceSmartAccount.abi.Pack("hashBatch", calls, t)
}

// UnpackHashBatch is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xec4c3fad.
//
// Solidity: function hashBatch((address,uint256,bytes)[] calls, (uint64,bytes32,uint8,bool,uint64,bytes32) t) view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) UnpackHashBatch(data []byte) ([32]byte, error) {
	out, err := paceSmartAccount.abi.Unpack("hashBatch", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackHashDelegatedPDR is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3cb3d063.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function hashDelegatedPDR(address target, uint256 value, bytes data, (uint64,bytes32,uint8,bool,uint64,bytes32) t) view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) PackHashDelegatedPDR(target common.Address, value *big.Int, data []byte, t IPaceSmartAccountPDRTerms) []byte {
	enc, err := paceSmartAccount.abi.Pack("hashDelegatedPDR", target, value, data, t)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackHashDelegatedPDR is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3cb3d063.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function hashDelegatedPDR(address target, uint256 value, bytes data, (uint64,bytes32,uint8,bool,uint64,bytes32) t) view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) TryPackHashDelegatedPDR(target common.Address, value *big.Int, data []byte, t IPaceSmartAccountPDRTerms) ([]byte, error) {
	return paceSmartAccount.abi.Pack("hashDelegatedPDR", target, value, data, t)
}

// UnpackHashDelegatedPDR is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3cb3d063.
//
// Solidity: function hashDelegatedPDR(address target, uint256 value, bytes data, (uint64,bytes32,uint8,bool,uint64,bytes32) t) view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) UnpackHashDelegatedPDR(data []byte) ([32]byte, error) {
	out, err := paceSmartAccount.abi.Unpack("hashDelegatedPDR", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackHashDelegation is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe656d339.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function hashDelegation((address,address,bytes32,address[],bytes4[],uint256,uint256,uint64,bytes32) d) view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) PackHashDelegation(d IPaceSmartAccountDelegation) []byte {
	enc, err := paceSmartAccount.abi.Pack("hashDelegation", d)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackHashDelegation is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe656d339.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function hashDelegation((address,address,bytes32,address[],bytes4[],uint256,uint256,uint64,bytes32) d) view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) TryPackHashDelegation(d IPaceSmartAccountDelegation) ([]byte, error) {
	return paceSmartAccount.abi.Pack("hashDelegation", d)
}

// UnpackHashDelegation is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe656d339.
//
// Solidity: function hashDelegation((address,address,bytes32,address[],bytes4[],uint256,uint256,uint64,bytes32) d) view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) UnpackHashDelegation(data []byte) ([32]byte, error) {
	out, err := paceSmartAccount.abi.Unpack("hashDelegation", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackHashPDR is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd64063c2.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function hashPDR(address target, uint256 value, bytes data, (uint64,bytes32,uint8,bool,uint64,bytes32) t) view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) PackHashPDR(target common.Address, value *big.Int, data []byte, t IPaceSmartAccountPDRTerms) []byte {
	enc, err := paceSmartAccount.abi.Pack("hashPDR", target, value, data, t)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackHashPDR is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd64063c2.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function hashPDR(address target, uint256 value, bytes data, (uint64,bytes32,uint8,bool,uint64,bytes32) t) view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) TryPackHashPDR(target common.Address, value *big.Int, data []byte, t IPaceSmartAccountPDRTerms) ([]byte, error) {
	return paceSmartAccount.abi.Pack("hashPDR", target, value, data, t)
}

// UnpackHashPDR is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd64063c2.
//
// Solidity: function hashPDR(address target, uint256 value, bytes data, (uint64,bytes32,uint8,bool,uint64,bytes32) t) view returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) UnpackHashPDR(data []byte) ([32]byte, error) {
	out, err := paceSmartAccount.abi.Unpack("hashPDR", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackIsApprover is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6d218e48.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isApprover(address approver) view returns(bool)
func (paceSmartAccount *PaceSmartAccount) PackIsApprover(approver common.Address) []byte {
	enc, err := paceSmartAccount.abi.Pack("isApprover", approver)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsApprover is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6d218e48.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isApprover(address approver) view returns(bool)
func (paceSmartAccount *PaceSmartAccount) TryPackIsApprover(approver common.Address) ([]byte, error) {
	return paceSmartAccount.abi.Pack("isApprover", approver)
}

// UnpackIsApprover is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x6d218e48.
//
// Solidity: function isApprover(address approver) view returns(bool)
func (paceSmartAccount *PaceSmartAccount) UnpackIsApprover(data []byte) (bool, error) {
	out, err := paceSmartAccount.abi.Unpack("isApprover", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackIsRevoked is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4294857f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isRevoked(bytes32 delegationHash) view returns(bool)
func (paceSmartAccount *PaceSmartAccount) PackIsRevoked(delegationHash [32]byte) []byte {
	enc, err := paceSmartAccount.abi.Pack("isRevoked", delegationHash)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsRevoked is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4294857f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isRevoked(bytes32 delegationHash) view returns(bool)
func (paceSmartAccount *PaceSmartAccount) TryPackIsRevoked(delegationHash [32]byte) ([]byte, error) {
	return paceSmartAccount.abi.Pack("isRevoked", delegationHash)
}

// UnpackIsRevoked is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x4294857f.
//
// Solidity: function isRevoked(bytes32 delegationHash) view returns(bool)
func (paceSmartAccount *PaceSmartAccount) UnpackIsRevoked(data []byte) (bool, error) {
	out, err := paceSmartAccount.abi.Unpack("isRevoked", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackIsValidSignature is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1626ba7e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (paceSmartAccount *PaceSmartAccount) PackIsValidSignature(hash [32]byte, signature []byte) []byte {
	enc, err := paceSmartAccount.abi.Pack("isValidSignature", hash, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsValidSignature is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1626ba7e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (paceSmartAccount *PaceSmartAccount) TryPackIsValidSignature(hash [32]byte, signature []byte) ([]byte, error) {
	return paceSmartAccount.abi.Pack("isValidSignature", hash, signature)
}

// UnpackIsValidSignature is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1626ba7e.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (paceSmartAccount *PaceSmartAccount) UnpackIsValidSignature(data []byte) ([4]byte, error) {
	out, err := paceSmartAccount.abi.Unpack("isValidSignature", data)
	if err != nil {
		return *new([4]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([4]byte)).(*[4]byte)
	return out0, nil
}

// PackNonce is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xaffed0e0.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function nonce() view returns(uint64)
func (paceSmartAccount *PaceSmartAccount) PackNonce() []byte {
	enc, err := paceSmartAccount.abi.Pack("nonce")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackNonce is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xaffed0e0.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function nonce() view returns(uint64)
func (paceSmartAccount *PaceSmartAccount) TryPackNonce() ([]byte, error) {
	return paceSmartAccount.abi.Pack("nonce")
}

// UnpackNonce is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xaffed0e0.
//
// Solidity: function nonce() view returns(uint64)
func (paceSmartAccount *PaceSmartAccount) UnpackNonce(data []byte) (uint64, error) {
	out, err := paceSmartAccount.abi.Unpack("nonce", data)
	if err != nil {
		return *new(uint64), err
	}
	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)
	return out0, nil
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (paceSmartAccount *PaceSmartAccount) PackOwner() []byte {
	enc, err := paceSmartAccount.abi.Pack("owner")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function owner() view returns(address)
func (paceSmartAccount *PaceSmartAccount) TryPackOwner() ([]byte, error) {
	return paceSmartAccount.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (paceSmartAccount *PaceSmartAccount) UnpackOwner(data []byte) (common.Address, error) {
	out, err := paceSmartAccount.abi.Unpack("owner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackPackCall is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3d2a8bc5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function packCall(address target, bytes4 selector, bool success) pure returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) PackPackCall(target common.Address, selector [4]byte, success bool) []byte {
	enc, err := paceSmartAccount.abi.Pack("packCall", target, selector, success)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPackCall is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3d2a8bc5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function packCall(address target, bytes4 selector, bool success) pure returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) TryPackPackCall(target common.Address, selector [4]byte, success bool) ([]byte, error) {
	return paceSmartAccount.abi.Pack("packCall", target, selector, success)
}

// UnpackPackCall is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3d2a8bc5.
//
// Solidity: function packCall(address target, bytes4 selector, bool success) pure returns(bytes32)
func (paceSmartAccount *PaceSmartAccount) UnpackPackCall(data []byte) ([32]byte, error) {
	out, err := paceSmartAccount.abi.Unpack("packCall", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackPendingOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe30c3978.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function pendingOwner() view returns(address)
func (paceSmartAccount *PaceSmartAccount) PackPendingOwner() []byte {
	enc, err := paceSmartAccount.abi.Pack("pendingOwner")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPendingOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe30c3978.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function pendingOwner() view returns(address)
func (paceSmartAccount *PaceSmartAccount) TryPackPendingOwner() ([]byte, error) {
	return paceSmartAccount.abi.Pack("pendingOwner")
}

// UnpackPendingOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe30c3978.
//
// Solidity: function pendingOwner() view returns(address)
func (paceSmartAccount *PaceSmartAccount) UnpackPendingOwner(data []byte) (common.Address, error) {
	out, err := paceSmartAccount.abi.Unpack("pendingOwner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackPolicySigner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x38eab6b9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function policySigner() view returns(address)
func (paceSmartAccount *PaceSmartAccount) PackPolicySigner() []byte {
	enc, err := paceSmartAccount.abi.Pack("policySigner")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPolicySigner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x38eab6b9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function policySigner() view returns(address)
func (paceSmartAccount *PaceSmartAccount) TryPackPolicySigner() ([]byte, error) {
	return paceSmartAccount.abi.Pack("policySigner")
}

// UnpackPolicySigner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x38eab6b9.
//
// Solidity: function policySigner() view returns(address)
func (paceSmartAccount *PaceSmartAccount) UnpackPolicySigner(data []byte) (common.Address, error) {
	out, err := paceSmartAccount.abi.Unpack("policySigner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackRenounceOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x715018a6.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function renounceOwnership() view returns()
func (paceSmartAccount *PaceSmartAccount) PackRenounceOwnership() []byte {
	enc, err := paceSmartAccount.abi.Pack("renounceOwnership")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRenounceOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x715018a6.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function renounceOwnership() view returns()
func (paceSmartAccount *PaceSmartAccount) TryPackRenounceOwnership() ([]byte, error) {
	return paceSmartAccount.abi.Pack("renounceOwnership")
}

// PackRevokeDelegation is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb96f2b07.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function revokeDelegation(bytes32 delegationHash) returns()
func (paceSmartAccount *PaceSmartAccount) PackRevokeDelegation(delegationHash [32]byte) []byte {
	enc, err := paceSmartAccount.abi.Pack("revokeDelegation", delegationHash)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRevokeDelegation is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb96f2b07.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function revokeDelegation(bytes32 delegationHash) returns()
func (paceSmartAccount *PaceSmartAccount) TryPackRevokeDelegation(delegationHash [32]byte) ([]byte, error) {
	return paceSmartAccount.abi.Pack("revokeDelegation", delegationHash)
}

// PackSetApprover is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd76fd2e7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setApprover(address approver, bool enabled) returns()
func (paceSmartAccount *PaceSmartAccount) PackSetApprover(approver common.Address, enabled bool) []byte {
	enc, err := paceSmartAccount.abi.Pack("setApprover", approver, enabled)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetApprover is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd76fd2e7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setApprover(address approver, bool enabled) returns()
func (paceSmartAccount *PaceSmartAccount) TryPackSetApprover(approver common.Address, enabled bool) ([]byte, error) {
	return paceSmartAccount.abi.Pack("setApprover", approver, enabled)
}

// PackSetPolicySigner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd5ee2fbe.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setPolicySigner(address newSigner) returns()
func (paceSmartAccount *PaceSmartAccount) PackSetPolicySigner(newSigner common.Address) []byte {
	enc, err := paceSmartAccount.abi.Pack("setPolicySigner", newSigner)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetPolicySigner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd5ee2fbe.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setPolicySigner(address newSigner) returns()
func (paceSmartAccount *PaceSmartAccount) TryPackSetPolicySigner(newSigner common.Address) ([]byte, error) {
	return paceSmartAccount.abi.Pack("setPolicySigner", newSigner)
}

// PackSetThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe5a98603.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setThreshold(uint8 newThreshold) returns()
func (paceSmartAccount *PaceSmartAccount) PackSetThreshold(newThreshold uint8) []byte {
	enc, err := paceSmartAccount.abi.Pack("setThreshold", newThreshold)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe5a98603.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setThreshold(uint8 newThreshold) returns()
func (paceSmartAccount *PaceSmartAccount) TryPackSetThreshold(newThreshold uint8) ([]byte, error) {
	return paceSmartAccount.abi.Pack("setThreshold", newThreshold)
}

// PackSpent is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xae20bed3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function spent(bytes32 delegationHash) view returns(uint256)
func (paceSmartAccount *PaceSmartAccount) PackSpent(delegationHash [32]byte) []byte {
	enc, err := paceSmartAccount.abi.Pack("spent", delegationHash)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSpent is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xae20bed3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function spent(bytes32 delegationHash) view returns(uint256)
func (paceSmartAccount *PaceSmartAccount) TryPackSpent(delegationHash [32]byte) ([]byte, error) {
	return paceSmartAccount.abi.Pack("spent", delegationHash)
}

// UnpackSpent is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xae20bed3.
//
// Solidity: function spent(bytes32 delegationHash) view returns(uint256)
func (paceSmartAccount *PaceSmartAccount) UnpackSpent(data []byte) (*big.Int, error) {
	out, err := paceSmartAccount.abi.Unpack("spent", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42cde4e8.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function threshold() view returns(uint8)
func (paceSmartAccount *PaceSmartAccount) PackThreshold() []byte {
	enc, err := paceSmartAccount.abi.Pack("threshold")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42cde4e8.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function threshold() view returns(uint8)
func (paceSmartAccount *PaceSmartAccount) TryPackThreshold() ([]byte, error) {
	return paceSmartAccount.abi.Pack("threshold")
}

// UnpackThreshold is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x42cde4e8.
//
// Solidity: function threshold() view returns(uint8)
func (paceSmartAccount *PaceSmartAccount) UnpackThreshold(data []byte) (uint8, error) {
	out, err := paceSmartAccount.abi.Unpack("threshold", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackTransferOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2fde38b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferOwnership(address newOwner) returns()
func (paceSmartAccount *PaceSmartAccount) PackTransferOwnership(newOwner common.Address) []byte {
	enc, err := paceSmartAccount.abi.Pack("transferOwnership", newOwner)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2fde38b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferOwnership(address newOwner) returns()
func (paceSmartAccount *PaceSmartAccount) TryPackTransferOwnership(newOwner common.Address) ([]byte, error) {
	return paceSmartAccount.abi.Pack("transferOwnership", newOwner)
}

// PaceSmartAccountApproverSet represents a ApproverSet event raised by the PaceSmartAccount contract.
type PaceSmartAccountApproverSet struct {
	Approver common.Address
	Enabled  bool
	Raw      *types.Log // Blockchain specific contextual infos
}

const PaceSmartAccountApproverSetEventName = "ApproverSet"

// ContractEventName returns the user-defined event name.
func (PaceSmartAccountApproverSet) ContractEventName() string {
	return PaceSmartAccountApproverSetEventName
}

// UnpackApproverSetEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ApproverSet(address indexed approver, bool enabled)
func (paceSmartAccount *PaceSmartAccount) UnpackApproverSetEvent(log *types.Log) (*PaceSmartAccountApproverSet, error) {
	event := "ApproverSet"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != paceSmartAccount.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PaceSmartAccountApproverSet)
	if len(log.Data) > 0 {
		if err := paceSmartAccount.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range paceSmartAccount.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// PaceSmartAccountDelegationRevoked represents a DelegationRevoked event raised by the PaceSmartAccount contract.
type PaceSmartAccountDelegationRevoked struct {
	DelegationHash [32]byte
	Raw            *types.Log // Blockchain specific contextual infos
}

const PaceSmartAccountDelegationRevokedEventName = "DelegationRevoked"

// ContractEventName returns the user-defined event name.
func (PaceSmartAccountDelegationRevoked) ContractEventName() string {
	return PaceSmartAccountDelegationRevokedEventName
}

// UnpackDelegationRevokedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event DelegationRevoked(bytes32 indexed delegationHash)
func (paceSmartAccount *PaceSmartAccount) UnpackDelegationRevokedEvent(log *types.Log) (*PaceSmartAccountDelegationRevoked, error) {
	event := "DelegationRevoked"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != paceSmartAccount.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PaceSmartAccountDelegationRevoked)
	if len(log.Data) > 0 {
		if err := paceSmartAccount.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range paceSmartAccount.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// PaceSmartAccountDelegationUsed represents a DelegationUsed event raised by the PaceSmartAccount contract.
type PaceSmartAccountDelegationUsed struct {
	PdrHash  [32]byte
	Delegate common.Address
	Chain    [][32]byte
	Raw      *types.Log // Blockchain specific contextual infos
}

const PaceSmartAccountDelegationUsedEventName = "DelegationUsed"

// ContractEventName returns the user-defined event name.
func (PaceSmartAccountDelegationUsed) ContractEventName() string {
	return PaceSmartAccountDelegationUsedEventName
}

// UnpackDelegationUsedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event DelegationUsed(bytes32 indexed pdrHash, address indexed delegate, bytes32[] chain)
func (paceSmartAccount *PaceSmartAccount) UnpackDelegationUsedEvent(log *types.Log) (*PaceSmartAccountDelegationUsed, error) {
	event := "DelegationUsed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != paceSmartAccount.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PaceSmartAccountDelegationUsed)
	if len(log.Data) > 0 {
		if err := paceSmartAccount.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range paceSmartAccount.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// PaceSmartAccountEIP712DomainChanged represents a EIP712DomainChanged event raised by the PaceSmartAccount contract.
type PaceSmartAccountEIP712DomainChanged struct {
	Raw *types.Log // Blockchain specific contextual infos
}

const PaceSmartAccountEIP712DomainChangedEventName = "EIP712DomainChanged"

// ContractEventName returns the user-defined event name.
func (PaceSmartAccountEIP712DomainChanged) ContractEventName() string {
	return PaceSmartAccountEIP712DomainChangedEventName
}

// UnpackEIP712DomainChangedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event EIP712DomainChanged()
func (paceSmartAccount *PaceSmartAccount) UnpackEIP712DomainChangedEvent(log *types.Log) (*PaceSmartAccountEIP712DomainChanged, error) {
	event := "EIP712DomainChanged"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != paceSmartAccount.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PaceSmartAccountEIP712DomainChanged)
	if len(log.Data) > 0 {
		if err := paceSmartAccount.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range paceSmartAccount.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// PaceSmartAccountExecuted represents a Executed event raised by the PaceSmartAccount contract.
type PaceSmartAccountExecuted struct {
	PdrHash [32]byte
	EventId [32]byte
	Call    [32]byte
	Value   *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const PaceSmartAccountExecutedEventName = "Executed"

// ContractEventName returns the user-defined event name.
func (PaceSmartAccountExecuted) ContractEventName() string {
	return PaceSmartAccountExecutedEventName
}

// UnpackExecutedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Executed(bytes32 indexed pdrHash, bytes32 indexed eventId, bytes32 call, uint256 value)
func (paceSmartAccount *PaceSmartAccount) UnpackExecutedEvent(log *types.Log) (*PaceSmartAccountExecuted, error) {
	event := "Executed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != paceSmartAccount.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PaceSmartAccountExecuted)
	if len(log.Data) > 0 {
		if err := paceSmartAccount.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range paceSmartAccount.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// PaceSmartAccountOwnershipTransferStarted represents a OwnershipTransferStarted event raised by the PaceSmartAccount contract.
type PaceSmartAccountOwnershipTransferStarted struct {
	PreviousOwner common.Address
	NewOwner      common.Address
	Raw           *types.Log // Blockchain specific contextual infos
}

const PaceSmartAccountOwnershipTransferStartedEventName = "OwnershipTransferStarted"

// ContractEventName returns the user-defined event name.
func (PaceSmartAccountOwnershipTransferStarted) ContractEventName() string {
	return PaceSmartAccountOwnershipTransferStartedEventName
}

// UnpackOwnershipTransferStartedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event OwnershipTransferStarted(address indexed previousOwner, address indexed newOwner)
func (paceSmartAccount *PaceSmartAccount) UnpackOwnershipTransferStartedEvent(log *types.Log) (*PaceSmartAccountOwnershipTransferStarted, error) {
	event := "OwnershipTransferStarted"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != paceSmartAccount.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PaceSmartAccountOwnershipTransferStarted)
	if len(log.Data) > 0 {
		if err := paceSmartAccount.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range paceSmartAccount.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// PaceSmartAccountOwnershipTransferred represents a OwnershipTransferred event raised by the PaceSmartAccount contract.
type PaceSmartAccountOwnershipTransferred struct {
	PreviousOwner common.Address
	NewOwner      common.Address
	Raw           *types.Log // Blockchain specific contextual infos
}

const PaceSmartAccountOwnershipTransferredEventName = "OwnershipTransferred"

// ContractEventName returns the user-defined event name.
func (PaceSmartAccountOwnershipTransferred) ContractEventName() string {
	return PaceSmartAccountOwnershipTransferredEventName
}

// UnpackOwnershipTransferredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)
func (paceSmartAccount *PaceSmartAccount) UnpackOwnershipTransferredEvent(log *types.Log) (*PaceSmartAccountOwnershipTransferred, error) {
	event := "OwnershipTransferred"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != paceSmartAccount.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PaceSmartAccountOwnershipTransferred)
	if len(log.Data) > 0 {
		if err := paceSmartAccount.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range paceSmartAccount.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// PaceSmartAccountPolicySignerChanged represents a PolicySignerChanged event raised by the PaceSmartAccount contract.
type PaceSmartAccountPolicySignerChanged struct {
	PreviousSigner common.Address
	NewSigner      common.Address
	Raw            *types.Log // Blockchain specific contextual infos
}

const PaceSmartAccountPolicySignerChangedEventName = "PolicySignerChanged"

// ContractEventName returns the user-defined event name.
func (PaceSmartAccountPolicySignerChanged) ContractEventName() string {
	return PaceSmartAccountPolicySignerChangedEventName
}

// UnpackPolicySignerChangedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event PolicySignerChanged(address indexed previousSigner, address indexed newSigner)
func (paceSmartAccount *PaceSmartAccount) UnpackPolicySignerChangedEvent(log *types.Log) (*PaceSmartAccountPolicySignerChanged, error) {
	event := "PolicySignerChanged"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != paceSmartAccount.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PaceSmartAccountPolicySignerChanged)
	if len(log.Data) > 0 {
		if err := paceSmartAccount.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range paceSmartAccount.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// PaceSmartAccountThresholdChanged represents a ThresholdChanged event raised by the PaceSmartAccount contract.
type PaceSmartAccountThresholdChanged struct {
	PreviousThreshold uint8
	NewThreshold      uint8
	Raw               *types.Log // Blockchain specific contextual infos
}

const PaceSmartAccountThresholdChangedEventName = "ThresholdChanged"

// ContractEventName returns the user-defined event name.
func (PaceSmartAccountThresholdChanged) ContractEventName() string {
	return PaceSmartAccountThresholdChangedEventName
}

// UnpackThresholdChangedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ThresholdChanged(uint8 previousThreshold, uint8 newThreshold)
func (paceSmartAccount *PaceSmartAccount) UnpackThresholdChangedEvent(log *types.Log) (*PaceSmartAccountThresholdChanged, error) {
	event := "ThresholdChanged"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != paceSmartAccount.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PaceSmartAccountThresholdChanged)
	if len(log.Data) > 0 {
		if err := paceSmartAccount.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range paceSmartAccount.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (paceSmartAccount *PaceSmartAccount) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["ApproverUnchanged"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackApproverUnchangedError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["ApproversNotSorted"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackApproversNotSortedError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["CallFailed"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackCallFailedError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["DecisionNotAllow"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackDecisionNotAllowError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["DelegationChainTooLong"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackDelegationChainTooLongError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["DelegationExpired"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackDelegationExpiredError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["DelegationParentMismatch"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackDelegationParentMismatchError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["DelegatorMismatch"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackDelegatorMismatchError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["DuplicateApprover"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackDuplicateApproverError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["ECDSAInvalidSignature"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackECDSAInvalidSignatureError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["ECDSAInvalidSignatureLength"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackECDSAInvalidSignatureLengthError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["ECDSAInvalidSignatureS"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackECDSAInvalidSignatureSError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["EmptyDelegationChain"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackEmptyDelegationChainError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["InsufficientGas"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackInsufficientGasError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["InvalidDelegationSignature"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackInvalidDelegationSignatureError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["InvalidNonce"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackInvalidNonceError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["InvalidShortString"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackInvalidShortStringError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["InvalidThreshold"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackInvalidThresholdError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["MalformedCompactCall"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackMalformedCompactCallError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["NotApprover"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackNotApproverError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["OwnableInvalidOwner"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackOwnableInvalidOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["OwnableUnauthorizedAccount"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackOwnableUnauthorizedAccountError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["PDRExpired"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackPDRExpiredError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["PolicySignerIsApprover"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackPolicySignerIsApproverError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["ReentrancyGuardReentrantCall"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackReentrancyGuardReentrantCallError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["RenounceDisabled"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackRenounceDisabledError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["RevokedDelegation"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackRevokedDelegationError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["SelectorNotDelegated"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackSelectorNotDelegatedError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["StringTooLong"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackStringTooLongError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["TargetIsAccount"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackTargetIsAccountError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["TargetNotDelegated"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackTargetNotDelegatedError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["TooFewApprovals"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackTooFewApprovalsError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["UnauthorizedDelegate"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackUnauthorizedDelegateError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["UnauthorizedPolicySigner"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackUnauthorizedPolicySignerError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["UndelegableCalldata"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackUndelegableCalldataError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["ValueOverCallCap"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackValueOverCallCapError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["ValueOverTotalCap"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackValueOverTotalCapError(raw[4:])
	}
	if bytes.Equal(raw[:4], paceSmartAccount.abi.Errors["ZeroAddress"].ID.Bytes()[:4]) {
		return paceSmartAccount.UnpackZeroAddressError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// PaceSmartAccountApproverUnchanged represents a ApproverUnchanged error raised by the PaceSmartAccount contract.
type PaceSmartAccountApproverUnchanged struct {
	Approver common.Address
	Enabled  bool
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ApproverUnchanged(address approver, bool enabled)
func PaceSmartAccountApproverUnchangedErrorID() common.Hash {
	return common.HexToHash("0x4e495586ceaa23cfc3fa9b1a066448107f6cfe90cb2aa6f988a432038e0c34a4")
}

// UnpackApproverUnchangedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ApproverUnchanged(address approver, bool enabled)
func (paceSmartAccount *PaceSmartAccount) UnpackApproverUnchangedError(raw []byte) (*PaceSmartAccountApproverUnchanged, error) {
	out := new(PaceSmartAccountApproverUnchanged)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "ApproverUnchanged", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountApproversNotSorted represents a ApproversNotSorted error raised by the PaceSmartAccount contract.
type PaceSmartAccountApproversNotSorted struct {
	Previous common.Address
	Next     common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ApproversNotSorted(address previous, address next)
func PaceSmartAccountApproversNotSortedErrorID() common.Hash {
	return common.HexToHash("0xf9ca829644d779c157a3abb9dc5da6b36be3621ba87fa0f194351b99b5fa873c")
}

// UnpackApproversNotSortedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ApproversNotSorted(address previous, address next)
func (paceSmartAccount *PaceSmartAccount) UnpackApproversNotSortedError(raw []byte) (*PaceSmartAccountApproversNotSorted, error) {
	out := new(PaceSmartAccountApproversNotSorted)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "ApproversNotSorted", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountCallFailed represents a CallFailed error raised by the PaceSmartAccount contract.
type PaceSmartAccountCallFailed struct {
	Index      *big.Int
	ReturnData []byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error CallFailed(uint256 index, bytes returnData)
func PaceSmartAccountCallFailedErrorID() common.Hash {
	return common.HexToHash("0x5c0dee5d32a1e145396705da49c1e64a2b1d63387f78c2697100f655567f5de9")
}

// UnpackCallFailedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error CallFailed(uint256 index, bytes returnData)
func (paceSmartAccount *PaceSmartAccount) UnpackCallFailedError(raw []byte) (*PaceSmartAccountCallFailed, error) {
	out := new(PaceSmartAccountCallFailed)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "CallFailed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountDecisionNotAllow represents a DecisionNotAllow error raised by the PaceSmartAccount contract.
type PaceSmartAccountDecisionNotAllow struct {
	Decision uint8
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DecisionNotAllow(uint8 decision)
func PaceSmartAccountDecisionNotAllowErrorID() common.Hash {
	return common.HexToHash("0x5558510d1f9ae3493b6a0364d16405915145626649a26ea27b80fecae6930f42")
}

// UnpackDecisionNotAllowError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DecisionNotAllow(uint8 decision)
func (paceSmartAccount *PaceSmartAccount) UnpackDecisionNotAllowError(raw []byte) (*PaceSmartAccountDecisionNotAllow, error) {
	out := new(PaceSmartAccountDecisionNotAllow)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "DecisionNotAllow", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountDelegationChainTooLong represents a DelegationChainTooLong error raised by the PaceSmartAccount contract.
type PaceSmartAccountDelegationChainTooLong struct {
	Length *big.Int
	Max    *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DelegationChainTooLong(uint256 length, uint256 max)
func PaceSmartAccountDelegationChainTooLongErrorID() common.Hash {
	return common.HexToHash("0x16f3d1080d43f22b03f4dd9c6b737e3f8cbeab7892b14d25c73c92846bff1846")
}

// UnpackDelegationChainTooLongError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DelegationChainTooLong(uint256 length, uint256 max)
func (paceSmartAccount *PaceSmartAccount) UnpackDelegationChainTooLongError(raw []byte) (*PaceSmartAccountDelegationChainTooLong, error) {
	out := new(PaceSmartAccountDelegationChainTooLong)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "DelegationChainTooLong", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountDelegationExpired represents a DelegationExpired error raised by the PaceSmartAccount contract.
type PaceSmartAccountDelegationExpired struct {
	DelegationHash [32]byte
	Expiry         uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DelegationExpired(bytes32 delegationHash, uint64 expiry)
func PaceSmartAccountDelegationExpiredErrorID() common.Hash {
	return common.HexToHash("0xdf04f3236ba06c266b0275e2bb89b96d657529ccb8c1d2ccec93b30b9395dd73")
}

// UnpackDelegationExpiredError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DelegationExpired(bytes32 delegationHash, uint64 expiry)
func (paceSmartAccount *PaceSmartAccount) UnpackDelegationExpiredError(raw []byte) (*PaceSmartAccountDelegationExpired, error) {
	out := new(PaceSmartAccountDelegationExpired)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "DelegationExpired", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountDelegationParentMismatch represents a DelegationParentMismatch error raised by the PaceSmartAccount contract.
type PaceSmartAccountDelegationParentMismatch struct {
	Index    *big.Int
	Expected [32]byte
	Got      [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DelegationParentMismatch(uint256 index, bytes32 expected, bytes32 got)
func PaceSmartAccountDelegationParentMismatchErrorID() common.Hash {
	return common.HexToHash("0xc7ed69474af7eaea03c800f7703abe4f6c46709b42291e0397bed5312b3f8369")
}

// UnpackDelegationParentMismatchError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DelegationParentMismatch(uint256 index, bytes32 expected, bytes32 got)
func (paceSmartAccount *PaceSmartAccount) UnpackDelegationParentMismatchError(raw []byte) (*PaceSmartAccountDelegationParentMismatch, error) {
	out := new(PaceSmartAccountDelegationParentMismatch)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "DelegationParentMismatch", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountDelegatorMismatch represents a DelegatorMismatch error raised by the PaceSmartAccount contract.
type PaceSmartAccountDelegatorMismatch struct {
	Index    *big.Int
	Expected common.Address
	Got      common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DelegatorMismatch(uint256 index, address expected, address got)
func PaceSmartAccountDelegatorMismatchErrorID() common.Hash {
	return common.HexToHash("0x6d266bec08e9b2a4d38ba8e4263ec70bf178186bfbeef6f8c618a79eb059eabc")
}

// UnpackDelegatorMismatchError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DelegatorMismatch(uint256 index, address expected, address got)
func (paceSmartAccount *PaceSmartAccount) UnpackDelegatorMismatchError(raw []byte) (*PaceSmartAccountDelegatorMismatch, error) {
	out := new(PaceSmartAccountDelegatorMismatch)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "DelegatorMismatch", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountDuplicateApprover represents a DuplicateApprover error raised by the PaceSmartAccount contract.
type PaceSmartAccountDuplicateApprover struct {
	Approver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DuplicateApprover(address approver)
func PaceSmartAccountDuplicateApproverErrorID() common.Hash {
	return common.HexToHash("0x8ef2e4072c917aba67764509a21e284d7495409ca42535a92fafcb5d86b141c8")
}

// UnpackDuplicateApproverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DuplicateApprover(address approver)
func (paceSmartAccount *PaceSmartAccount) UnpackDuplicateApproverError(raw []byte) (*PaceSmartAccountDuplicateApprover, error) {
	out := new(PaceSmartAccountDuplicateApprover)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "DuplicateApprover", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountECDSAInvalidSignature represents a ECDSAInvalidSignature error raised by the PaceSmartAccount contract.
type PaceSmartAccountECDSAInvalidSignature struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ECDSAInvalidSignature()
func PaceSmartAccountECDSAInvalidSignatureErrorID() common.Hash {
	return common.HexToHash("0xf645eedf0193584640b6b90cb9477e4c95b98636c148a891d4c0a146dc46e75a")
}

// UnpackECDSAInvalidSignatureError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ECDSAInvalidSignature()
func (paceSmartAccount *PaceSmartAccount) UnpackECDSAInvalidSignatureError(raw []byte) (*PaceSmartAccountECDSAInvalidSignature, error) {
	out := new(PaceSmartAccountECDSAInvalidSignature)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "ECDSAInvalidSignature", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountECDSAInvalidSignatureLength represents a ECDSAInvalidSignatureLength error raised by the PaceSmartAccount contract.
type PaceSmartAccountECDSAInvalidSignatureLength struct {
	Length *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ECDSAInvalidSignatureLength(uint256 length)
func PaceSmartAccountECDSAInvalidSignatureLengthErrorID() common.Hash {
	return common.HexToHash("0xfce698f7e8e5342cd615f641317bc45fe7e1e4a8b0a14dd1383ff8dc9c41917f")
}

// UnpackECDSAInvalidSignatureLengthError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ECDSAInvalidSignatureLength(uint256 length)
func (paceSmartAccount *PaceSmartAccount) UnpackECDSAInvalidSignatureLengthError(raw []byte) (*PaceSmartAccountECDSAInvalidSignatureLength, error) {
	out := new(PaceSmartAccountECDSAInvalidSignatureLength)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "ECDSAInvalidSignatureLength", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountECDSAInvalidSignatureS represents a ECDSAInvalidSignatureS error raised by the PaceSmartAccount contract.
type PaceSmartAccountECDSAInvalidSignatureS struct {
	S [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ECDSAInvalidSignatureS(bytes32 s)
func PaceSmartAccountECDSAInvalidSignatureSErrorID() common.Hash {
	return common.HexToHash("0xd78bce0cccb935155ed6428d1c13e50b7f3550fd2b66b9fe266006fea4a5e1eb")
}

// UnpackECDSAInvalidSignatureSError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ECDSAInvalidSignatureS(bytes32 s)
func (paceSmartAccount *PaceSmartAccount) UnpackECDSAInvalidSignatureSError(raw []byte) (*PaceSmartAccountECDSAInvalidSignatureS, error) {
	out := new(PaceSmartAccountECDSAInvalidSignatureS)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "ECDSAInvalidSignatureS", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountEmptyDelegationChain represents a EmptyDelegationChain error raised by the PaceSmartAccount contract.
type PaceSmartAccountEmptyDelegationChain struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptyDelegationChain()
func PaceSmartAccountEmptyDelegationChainErrorID() common.Hash {
	return common.HexToHash("0x103a9ca208b54ad7e843f53ecf2bfbff1e25c4eaeef07e81378845ddfd738b14")
}

// UnpackEmptyDelegationChainError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptyDelegationChain()
func (paceSmartAccount *PaceSmartAccount) UnpackEmptyDelegationChainError(raw []byte) (*PaceSmartAccountEmptyDelegationChain, error) {
	out := new(PaceSmartAccountEmptyDelegationChain)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "EmptyDelegationChain", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountInsufficientGas represents a InsufficientGas error raised by the PaceSmartAccount contract.
type PaceSmartAccountInsufficientGas struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InsufficientGas()
func PaceSmartAccountInsufficientGasErrorID() common.Hash {
	return common.HexToHash("0x1c26714c035362f785e44b6773a87881da86705e5698c55bb550907617bb1353")
}

// UnpackInsufficientGasError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InsufficientGas()
func (paceSmartAccount *PaceSmartAccount) UnpackInsufficientGasError(raw []byte) (*PaceSmartAccountInsufficientGas, error) {
	out := new(PaceSmartAccountInsufficientGas)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "InsufficientGas", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountInvalidDelegationSignature represents a InvalidDelegationSignature error raised by the PaceSmartAccount contract.
type PaceSmartAccountInvalidDelegationSignature struct {
	Index     *big.Int
	Recovered common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidDelegationSignature(uint256 index, address recovered)
func PaceSmartAccountInvalidDelegationSignatureErrorID() common.Hash {
	return common.HexToHash("0x80dcbe04b21704482db8bb1a63ff8a5c95cbe31170bc6e59d0cddd84dcf79482")
}

// UnpackInvalidDelegationSignatureError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidDelegationSignature(uint256 index, address recovered)
func (paceSmartAccount *PaceSmartAccount) UnpackInvalidDelegationSignatureError(raw []byte) (*PaceSmartAccountInvalidDelegationSignature, error) {
	out := new(PaceSmartAccountInvalidDelegationSignature)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "InvalidDelegationSignature", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountInvalidNonce represents a InvalidNonce error raised by the PaceSmartAccount contract.
type PaceSmartAccountInvalidNonce struct {
	Expected uint64
	Got      uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidNonce(uint64 expected, uint64 got)
func PaceSmartAccountInvalidNonceErrorID() common.Hash {
	return common.HexToHash("0xf917ffea6a1641a1e8b15877a7966d24eb1021272cd5d703237e70bfe6ba3116")
}

// UnpackInvalidNonceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidNonce(uint64 expected, uint64 got)
func (paceSmartAccount *PaceSmartAccount) UnpackInvalidNonceError(raw []byte) (*PaceSmartAccountInvalidNonce, error) {
	out := new(PaceSmartAccountInvalidNonce)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "InvalidNonce", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountInvalidShortString represents a InvalidShortString error raised by the PaceSmartAccount contract.
type PaceSmartAccountInvalidShortString struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidShortString()
func PaceSmartAccountInvalidShortStringErrorID() common.Hash {
	return common.HexToHash("0xb3512b0c6163e5f0bafab72bb631b9d58cd7a731b082f910338aa21c83d5c274")
}

// UnpackInvalidShortStringError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidShortString()
func (paceSmartAccount *PaceSmartAccount) UnpackInvalidShortStringError(raw []byte) (*PaceSmartAccountInvalidShortString, error) {
	out := new(PaceSmartAccountInvalidShortString)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "InvalidShortString", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountInvalidThreshold represents a InvalidThreshold error raised by the PaceSmartAccount contract.
type PaceSmartAccountInvalidThreshold struct {
	Threshold     *big.Int
	ApproverCount *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidThreshold(uint256 threshold, uint256 approverCount)
func PaceSmartAccountInvalidThresholdErrorID() common.Hash {
	return common.HexToHash("0x7b7a98f144b22ac349117faf884147efe6b9d8f459322b9ed0cb76310884f093")
}

// UnpackInvalidThresholdError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidThreshold(uint256 threshold, uint256 approverCount)
func (paceSmartAccount *PaceSmartAccount) UnpackInvalidThresholdError(raw []byte) (*PaceSmartAccountInvalidThreshold, error) {
	out := new(PaceSmartAccountInvalidThreshold)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "InvalidThreshold", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountMalformedCompactCall represents a MalformedCompactCall error raised by the PaceSmartAccount contract.
type PaceSmartAccountMalformedCompactCall struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error MalformedCompactCall()
func PaceSmartAccountMalformedCompactCallErrorID() common.Hash {
	return common.HexToHash("0xa876ebd2a86a0d2fd8c8914da8cce4ce29b982ed0fcb093244c21411dab5afce")
}

// UnpackMalformedCompactCallError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error MalformedCompactCall()
func (paceSmartAccount *PaceSmartAccount) UnpackMalformedCompactCallError(raw []byte) (*PaceSmartAccountMalformedCompactCall, error) {
	out := new(PaceSmartAccountMalformedCompactCall)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "MalformedCompactCall", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountNotApprover represents a NotApprover error raised by the PaceSmartAccount contract.
type PaceSmartAccountNotApprover struct {
	Signer common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotApprover(address signer)
func PaceSmartAccountNotApproverErrorID() common.Hash {
	return common.HexToHash("0xec37f14686a75744fb46deb050b359b6fc4b435a57c6181aa8ff686d7e9d6092")
}

// UnpackNotApproverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotApprover(address signer)
func (paceSmartAccount *PaceSmartAccount) UnpackNotApproverError(raw []byte) (*PaceSmartAccountNotApprover, error) {
	out := new(PaceSmartAccountNotApprover)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "NotApprover", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountOwnableInvalidOwner represents a OwnableInvalidOwner error raised by the PaceSmartAccount contract.
type PaceSmartAccountOwnableInvalidOwner struct {
	Owner common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error OwnableInvalidOwner(address owner)
func PaceSmartAccountOwnableInvalidOwnerErrorID() common.Hash {
	return common.HexToHash("0x1e4fbdf7f3ef8bcaa855599e3abf48b232380f183f08f6f813d9ffa5bd585188")
}

// UnpackOwnableInvalidOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error OwnableInvalidOwner(address owner)
func (paceSmartAccount *PaceSmartAccount) UnpackOwnableInvalidOwnerError(raw []byte) (*PaceSmartAccountOwnableInvalidOwner, error) {
	out := new(PaceSmartAccountOwnableInvalidOwner)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "OwnableInvalidOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountOwnableUnauthorizedAccount represents a OwnableUnauthorizedAccount error raised by the PaceSmartAccount contract.
type PaceSmartAccountOwnableUnauthorizedAccount struct {
	Account common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error OwnableUnauthorizedAccount(address account)
func PaceSmartAccountOwnableUnauthorizedAccountErrorID() common.Hash {
	return common.HexToHash("0x118cdaa7a341953d1887a2245fd6665d741c67c8c50581daa59e1d03373fa188")
}

// UnpackOwnableUnauthorizedAccountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error OwnableUnauthorizedAccount(address account)
func (paceSmartAccount *PaceSmartAccount) UnpackOwnableUnauthorizedAccountError(raw []byte) (*PaceSmartAccountOwnableUnauthorizedAccount, error) {
	out := new(PaceSmartAccountOwnableUnauthorizedAccount)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "OwnableUnauthorizedAccount", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountPDRExpired represents a PDRExpired error raised by the PaceSmartAccount contract.
type PaceSmartAccountPDRExpired struct {
	Expiry uint64
	NowTs  *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error PDRExpired(uint64 expiry, uint256 nowTs)
func PaceSmartAccountPDRExpiredErrorID() common.Hash {
	return common.HexToHash("0xfda15cc861007bde129bc91fa53402690f9e32bda8fa2d0c5e28dbfbefdcd96e")
}

// UnpackPDRExpiredError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error PDRExpired(uint64 expiry, uint256 nowTs)
func (paceSmartAccount *PaceSmartAccount) UnpackPDRExpiredError(raw []byte) (*PaceSmartAccountPDRExpired, error) {
	out := new(PaceSmartAccountPDRExpired)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "PDRExpired", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountPolicySignerIsApprover represents a PolicySignerIsApprover error raised by the PaceSmartAccount contract.
type PaceSmartAccountPolicySignerIsApprover struct {
	Account common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error PolicySignerIsApprover(address account)
func PaceSmartAccountPolicySignerIsApproverErrorID() common.Hash {
	return common.HexToHash("0xe4a3c90bf3b16457d08101ccdd2d8b3aa45f381297ae2f4f1972b548a5bff8c9")
}

// UnpackPolicySignerIsApproverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error PolicySignerIsApprover(address account)
func (paceSmartAccount *PaceSmartAccount) UnpackPolicySignerIsApproverError(raw []byte) (*PaceSmartAccountPolicySignerIsApprover, error) {
	out := new(PaceSmartAccountPolicySignerIsApprover)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "PolicySignerIsApprover", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountReentrancyGuardReentrantCall represents a ReentrancyGuardReentrantCall error raised by the PaceSmartAccount contract.
type PaceSmartAccountReentrancyGuardReentrantCall struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ReentrancyGuardReentrantCall()
func PaceSmartAccountReentrancyGuardReentrantCallErrorID() common.Hash {
	return common.HexToHash("0x3ee5aeb571de7fc460830b4d0017439a1ca56fb0bc39062227ade4fe4a24c1ca")
}

// UnpackReentrancyGuardReentrantCallError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ReentrancyGuardReentrantCall()
func (paceSmartAccount *PaceSmartAccount) UnpackReentrancyGuardReentrantCallError(raw []byte) (*PaceSmartAccountReentrancyGuardReentrantCall, error) {
	out := new(PaceSmartAccountReentrancyGuardReentrantCall)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "ReentrancyGuardReentrantCall", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountRenounceDisabled represents a RenounceDisabled error raised by the PaceSmartAccount contract.
type PaceSmartAccountRenounceDisabled struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error RenounceDisabled()
func PaceSmartAccountRenounceDisabledErrorID() common.Hash {
	return common.HexToHash("0x8905116560d0223388013a6344e0f340294b54bf7b203773dd2cb8f2e5a0d511")
}

// UnpackRenounceDisabledError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error RenounceDisabled()
func (paceSmartAccount *PaceSmartAccount) UnpackRenounceDisabledError(raw []byte) (*PaceSmartAccountRenounceDisabled, error) {
	out := new(PaceSmartAccountRenounceDisabled)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "RenounceDisabled", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountRevokedDelegation represents a RevokedDelegation error raised by the PaceSmartAccount contract.
type PaceSmartAccountRevokedDelegation struct {
	DelegationHash [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error RevokedDelegation(bytes32 delegationHash)
func PaceSmartAccountRevokedDelegationErrorID() common.Hash {
	return common.HexToHash("0x9929bd17589848dbccf7577d9e978304cf3707c6d6a0d025e00313c8bb5cc8b5")
}

// UnpackRevokedDelegationError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error RevokedDelegation(bytes32 delegationHash)
func (paceSmartAccount *PaceSmartAccount) UnpackRevokedDelegationError(raw []byte) (*PaceSmartAccountRevokedDelegation, error) {
	out := new(PaceSmartAccountRevokedDelegation)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "RevokedDelegation", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountSelectorNotDelegated represents a SelectorNotDelegated error raised by the PaceSmartAccount contract.
type PaceSmartAccountSelectorNotDelegated struct {
	DelegationHash [32]byte
	Selector       [4]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error SelectorNotDelegated(bytes32 delegationHash, bytes4 selector)
func PaceSmartAccountSelectorNotDelegatedErrorID() common.Hash {
	return common.HexToHash("0x92ac9f7614d8bbe5544a986dff6d357632be7d6e070b9f704427910a40599fbe")
}

// UnpackSelectorNotDelegatedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error SelectorNotDelegated(bytes32 delegationHash, bytes4 selector)
func (paceSmartAccount *PaceSmartAccount) UnpackSelectorNotDelegatedError(raw []byte) (*PaceSmartAccountSelectorNotDelegated, error) {
	out := new(PaceSmartAccountSelectorNotDelegated)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "SelectorNotDelegated", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountStringTooLong represents a StringTooLong error raised by the PaceSmartAccount contract.
type PaceSmartAccountStringTooLong struct {
	Str string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error StringTooLong(string str)
func PaceSmartAccountStringTooLongErrorID() common.Hash {
	return common.HexToHash("0x305a27a93f8e33b7392df0a0f91d6fc63847395853c45991eec52dbf24d72381")
}

// UnpackStringTooLongError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error StringTooLong(string str)
func (paceSmartAccount *PaceSmartAccount) UnpackStringTooLongError(raw []byte) (*PaceSmartAccountStringTooLong, error) {
	out := new(PaceSmartAccountStringTooLong)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "StringTooLong", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountTargetIsAccount represents a TargetIsAccount error raised by the PaceSmartAccount contract.
type PaceSmartAccountTargetIsAccount struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error TargetIsAccount()
func PaceSmartAccountTargetIsAccountErrorID() common.Hash {
	return common.HexToHash("0x773f5c67e4393b83dd5e3ababc9be0ec372d3ebf29a63db44c20e4dbcba43144")
}

// UnpackTargetIsAccountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error TargetIsAccount()
func (paceSmartAccount *PaceSmartAccount) UnpackTargetIsAccountError(raw []byte) (*PaceSmartAccountTargetIsAccount, error) {
	out := new(PaceSmartAccountTargetIsAccount)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "TargetIsAccount", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountTargetNotDelegated represents a TargetNotDelegated error raised by the PaceSmartAccount contract.
type PaceSmartAccountTargetNotDelegated struct {
	DelegationHash [32]byte
	Target         common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error TargetNotDelegated(bytes32 delegationHash, address target)
func PaceSmartAccountTargetNotDelegatedErrorID() common.Hash {
	return common.HexToHash("0x22cb699d47dd5f39fe2b8bd20c04361f9c92a1a90a98d90f9379bde3000b52dc")
}

// UnpackTargetNotDelegatedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error TargetNotDelegated(bytes32 delegationHash, address target)
func (paceSmartAccount *PaceSmartAccount) UnpackTargetNotDelegatedError(raw []byte) (*PaceSmartAccountTargetNotDelegated, error) {
	out := new(PaceSmartAccountTargetNotDelegated)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "TargetNotDelegated", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountTooFewApprovals represents a TooFewApprovals error raised by the PaceSmartAccount contract.
type PaceSmartAccountTooFewApprovals struct {
	Got       *big.Int
	Threshold *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error TooFewApprovals(uint256 got, uint256 threshold)
func PaceSmartAccountTooFewApprovalsErrorID() common.Hash {
	return common.HexToHash("0x3ef8fc50e4d3704999ee4403f6d9b84267637b4b117e8c115d8b3681f2876bec")
}

// UnpackTooFewApprovalsError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error TooFewApprovals(uint256 got, uint256 threshold)
func (paceSmartAccount *PaceSmartAccount) UnpackTooFewApprovalsError(raw []byte) (*PaceSmartAccountTooFewApprovals, error) {
	out := new(PaceSmartAccountTooFewApprovals)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "TooFewApprovals", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountUnauthorizedDelegate represents a UnauthorizedDelegate error raised by the PaceSmartAccount contract.
type PaceSmartAccountUnauthorizedDelegate struct {
	Delegate  common.Address
	Recovered common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error UnauthorizedDelegate(address delegate, address recovered)
func PaceSmartAccountUnauthorizedDelegateErrorID() common.Hash {
	return common.HexToHash("0x8d2c08d1a79fb87b67a3d0833986ceb89e552cd80eb0e082c5ec16f59192c2e5")
}

// UnpackUnauthorizedDelegateError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error UnauthorizedDelegate(address delegate, address recovered)
func (paceSmartAccount *PaceSmartAccount) UnpackUnauthorizedDelegateError(raw []byte) (*PaceSmartAccountUnauthorizedDelegate, error) {
	out := new(PaceSmartAccountUnauthorizedDelegate)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "UnauthorizedDelegate", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountUnauthorizedPolicySigner represents a UnauthorizedPolicySigner error raised by the PaceSmartAccount contract.
type PaceSmartAccountUnauthorizedPolicySigner struct {
	Recovered common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error UnauthorizedPolicySigner(address recovered)
func PaceSmartAccountUnauthorizedPolicySignerErrorID() common.Hash {
	return common.HexToHash("0x590f6edf5effb6223ee831989831e01fbb8e98b41886bbb2eb335df6bdaa290c")
}

// UnpackUnauthorizedPolicySignerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error UnauthorizedPolicySigner(address recovered)
func (paceSmartAccount *PaceSmartAccount) UnpackUnauthorizedPolicySignerError(raw []byte) (*PaceSmartAccountUnauthorizedPolicySigner, error) {
	out := new(PaceSmartAccountUnauthorizedPolicySigner)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "UnauthorizedPolicySigner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountUndelegableCalldata represents a UndelegableCalldata error raised by the PaceSmartAccount contract.
type PaceSmartAccountUndelegableCalldata struct {
	Length *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error UndelegableCalldata(uint256 length)
func PaceSmartAccountUndelegableCalldataErrorID() common.Hash {
	return common.HexToHash("0x22b5f0568b288351ef6ab6579356fb6784e3c35c7bd8e63593e30fc5f90ac66d")
}

// UnpackUndelegableCalldataError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error UndelegableCalldata(uint256 length)
func (paceSmartAccount *PaceSmartAccount) UnpackUndelegableCalldataError(raw []byte) (*PaceSmartAccountUndelegableCalldata, error) {
	out := new(PaceSmartAccountUndelegableCalldata)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "UndelegableCalldata", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountValueOverCallCap represents a ValueOverCallCap error raised by the PaceSmartAccount contract.
type PaceSmartAccountValueOverCallCap struct {
	DelegationHash [32]byte
	Value          *big.Int
	Cap            *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ValueOverCallCap(bytes32 delegationHash, uint256 value, uint256 cap)
func PaceSmartAccountValueOverCallCapErrorID() common.Hash {
	return common.HexToHash("0x70e33c922b27546f3015b62b61a3bcc25bfd992aa6947617b713322ba8783388")
}

// UnpackValueOverCallCapError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ValueOverCallCap(bytes32 delegationHash, uint256 value, uint256 cap)
func (paceSmartAccount *PaceSmartAccount) UnpackValueOverCallCapError(raw []byte) (*PaceSmartAccountValueOverCallCap, error) {
	out := new(PaceSmartAccountValueOverCallCap)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "ValueOverCallCap", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountValueOverTotalCap represents a ValueOverTotalCap error raised by the PaceSmartAccount contract.
type PaceSmartAccountValueOverTotalCap struct {
	DelegationHash [32]byte
	Total          *big.Int
	Cap            *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ValueOverTotalCap(bytes32 delegationHash, uint256 total, uint256 cap)
func PaceSmartAccountValueOverTotalCapErrorID() common.Hash {
	return common.HexToHash("0xa62e67b7f34a882f9fd3aa59d7a50aa23e221668a26cec586d79afeb94d95bd6")
}

// UnpackValueOverTotalCapError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ValueOverTotalCap(bytes32 delegationHash, uint256 total, uint256 cap)
func (paceSmartAccount *PaceSmartAccount) UnpackValueOverTotalCapError(raw []byte) (*PaceSmartAccountValueOverTotalCap, error) {
	out := new(PaceSmartAccountValueOverTotalCap)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "ValueOverTotalCap", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PaceSmartAccountZeroAddress represents a ZeroAddress error raised by the PaceSmartAccount contract.
type PaceSmartAccountZeroAddress struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ZeroAddress()
func PaceSmartAccountZeroAddressErrorID() common.Hash {
	return common.HexToHash("0xd92e233df2717d4a40030e20904abd27b68fcbeede117eaaccbbdac9618c8c73")
}

// UnpackZeroAddressError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ZeroAddress()
func (paceSmartAccount *PaceSmartAccount) UnpackZeroAddressError(raw []byte) (*PaceSmartAccountZeroAddress, error) {
	out := new(PaceSmartAccountZeroAddress)
	if err := paceSmartAccount.abi.UnpackIntoInterface(out, "ZeroAddress", raw); err != nil {
		return nil, err
	}
	return out, nil
}
