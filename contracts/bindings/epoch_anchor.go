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

// EpochAnchorMetaData contains all meta data concerning the EpochAnchor contract.
var EpochAnchorMetaData = bind.MetaData{
	ABI: "[{\"type\":\"function\",\"name\":\"anchor\",\"inputs\":[{\"name\":\"logId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"epoch\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"root\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"prevRoot\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"outputs\":[],\"stateMutability\":\"nonpayable\"},{\"type\":\"function\",\"name\":\"anchorBatch\",\"inputs\":[{\"name\":\"batch\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"root\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"prevRoot\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"entries\",\"type\":\"bytes\",\"internalType\":\"bytes\"}],\"outputs\":[],\"stateMutability\":\"nonpayable\"},{\"type\":\"function\",\"name\":\"anchorRoots\",\"inputs\":[{\"name\":\"logId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"epoch\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"roots\",\"type\":\"bytes32[]\",\"internalType\":\"bytes32[]\"},{\"name\":\"prevRoot\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"outputs\":[],\"stateMutability\":\"nonpayable\"},{\"type\":\"function\",\"name\":\"commitmentOf\",\"inputs\":[{\"name\":\"epoch\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"root\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"outputs\":[{\"name\":\"\",\"type\":\"bytes24\",\"internalType\":\"bytes24\"}],\"stateMutability\":\"pure\"},{\"type\":\"function\",\"name\":\"head\",\"inputs\":[{\"name\":\"operator\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"logId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"outputs\":[{\"name\":\"anchored\",\"type\":\"bool\",\"internalType\":\"bool\"},{\"name\":\"epoch\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"commitment\",\"type\":\"bytes24\",\"internalType\":\"bytes24\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"isHead\",\"inputs\":[{\"name\":\"operator\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"logId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"epoch\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"root\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"outputs\":[{\"name\":\"\",\"type\":\"bool\",\"internalType\":\"bool\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"nextEpoch\",\"inputs\":[{\"name\":\"operator\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"logId\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"outputs\":[{\"name\":\"\",\"type\":\"uint64\",\"internalType\":\"uint64\"}],\"stateMutability\":\"view\"},{\"type\":\"event\",\"name\":\"Anchored\",\"inputs\":[{\"name\":\"operator\",\"type\":\"address\",\"indexed\":true,\"internalType\":\"address\"},{\"name\":\"logId\",\"type\":\"bytes32\",\"indexed\":true,\"internalType\":\"bytes32\"},{\"name\":\"epoch\",\"type\":\"uint64\",\"indexed\":true,\"internalType\":\"uint64\"},{\"name\":\"root\",\"type\":\"bytes32\",\"indexed\":false,\"internalType\":\"bytes32\"},{\"name\":\"prevRoot\",\"type\":\"bytes32\",\"indexed\":false,\"internalType\":\"bytes32\"}],\"anonymous\":false},{\"type\":\"event\",\"name\":\"BatchContents\",\"inputs\":[{\"name\":\"operator\",\"type\":\"address\",\"indexed\":true,\"internalType\":\"address\"},{\"name\":\"batch\",\"type\":\"uint64\",\"indexed\":true,\"internalType\":\"uint64\"},{\"name\":\"entries\",\"type\":\"bytes\",\"indexed\":false,\"internalType\":\"bytes\"}],\"anonymous\":false},{\"type\":\"error\",\"name\":\"BackPointerMismatch\",\"inputs\":[{\"name\":\"epoch\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"prevRoot\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]},{\"type\":\"error\",\"name\":\"EmptyRun\",\"inputs\":[]},{\"type\":\"error\",\"name\":\"EpochOutOfOrder\",\"inputs\":[{\"name\":\"epoch\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"expected\",\"type\":\"uint64\",\"internalType\":\"uint64\"}]},{\"type\":\"error\",\"name\":\"GenesisBackPointerNotZero\",\"inputs\":[{\"name\":\"prevRoot\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]},{\"type\":\"error\",\"name\":\"MalformedBatch\",\"inputs\":[{\"name\":\"length\",\"type\":\"uint256\",\"internalType\":\"uint256\"}]},{\"type\":\"error\",\"name\":\"ZeroRoot\",\"inputs\":[{\"name\":\"epoch\",\"type\":\"uint64\",\"internalType\":\"uint64\"}]}]",
	ID:  "EpochAnchor",
	Bin: "0x6080604052348015600e575f5ffd5b5061088a8061001c5f395ff3fe608060405234801561000f575f5ffd5b506004361061007a575f3560e01c80637f00e393116100585780637f00e393146101375780638e2d7f151461014a578063cff2795f1461015d578063fc601a5414610180575f5ffd5b80630e78187d1461007e57806324e8393d146100c75780633841832714610122575b5f5ffd5b61009161008c3660046105a8565b6101b9565b6040517fffffffffffffffffffffffffffffffffffffffffffffffff000000000000000090911681526020015b60405180910390f35b6100da6100d53660046105f3565b6101f5565b60408051931515845267ffffffffffffffff90921660208401527fffffffffffffffffffffffffffffffffffffffffffffffff000000000000000016908201526060016100be565b61013561013036600461060d565b610247565b005b61013561014536600461069b565b610309565b6101356101583660046106d3565b61040a565b61017061016b366004610760565b610517565b60405190151581526020016100be565b6101a061018e3660046105f3565b5f918252602052604090205460c01c90565b60405167ffffffffffffffff90911681526020016100be565b6040805167ffffffffffffffff8416602080830191909152818301849052825180830384018152606090920183528151910120901b5b92915050565b5f5f5f5f61020d86865f918252602052604090205490565b9050805f0361022557505f9250829150819050610240565b60016102358160c084901c6107a1565b909450925060401b90505b9250925092565b80158061025d575061025a6068826107d9565b15155b1561029b576040517f70ac562d0000000000000000000000000000000000000000000000000000000081526004810182905260240160405180910390fd5b6102a75f868686610309565b8467ffffffffffffffff163373ffffffffffffffffffffffffffffffffffffffff167f501df5d47a47da667099f7858eadabfd02f2969e6fdf5d01de23b46b1abc500484846040516102fa929190610811565b60405180910390a35050505050565b335f528360205260405f2080548060c01c80861461033f5760405163aafac23460e01b8152866004820152816024820152604481fd5b5083610356576341408c495f52846020526024601cfd5b8480156103a057600186035f52836020528160401b60401c60405f2060401b60401c1461039b5760405163bfc3f72960e01b8152866004820152846024820152604481fd5b6103b7565b83156103b757637b1f90935f52836020526024601cfd5b5050835f528260205260405f2060401b60401c6001850160c01b17815550815f52806020528284337fa58519225e4f9c8267cd9793b73fec57d8d8f98424e8f206c6d7288d6fe037e760405fa450505050565b815f819003610445576040517f0e203b2200000000000000000000000000000000000000000000000000000000815260040160405180910390fd5b610469868686865f81811061045c5761045c61085d565b9050602002013585610309565b806001036104775750610510565b833560015b828110156104de578060051b860135818801816104a4576341408c495f52806020526024601cfd5b815f5283602052808a337fa58519225e4f9c8267cd9793b73fec57d8d8f98424e8f206c6d7288d6fe037e760405fa450915060010161047c565b50600182038601335f528760205260405f20815f528260205260405f2060401b60401c6001830160c01b178155505050505b5050505050565b5f848152602084905260408120548015801590610555575067ffffffffffffffff8416610549600160c084901c6107a1565b67ffffffffffffffff16145b8015610582575061056684846101b9565b67ffffffffffffffff19168160401b67ffffffffffffffff1916145b9695505050505050565b803567ffffffffffffffff811681146105a3575f5ffd5b919050565b5f5f604083850312156105b9575f5ffd5b6105c28361058c565b946020939093013593505050565b803573ffffffffffffffffffffffffffffffffffffffff811681146105a3575f5ffd5b5f5f60408385031215610604575f5ffd5b6105c2836105d0565b5f5f5f5f5f60808688031215610621575f5ffd5b61062a8661058c565b94506020860135935060408601359250606086013567ffffffffffffffff811115610653575f5ffd5b8601601f81018813610663575f5ffd5b803567ffffffffffffffff811115610679575f5ffd5b88602082840101111561068a575f5ffd5b959894975092955050506020019190565b5f5f5f5f608085870312156106ae575f5ffd5b843593506106be6020860161058c565b93969395505050506040820135916060013590565b5f5f5f5f5f608086880312156106e7575f5ffd5b853594506106f76020870161058c565b9350604086013567ffffffffffffffff811115610712575f5ffd5b8601601f81018813610722575f5ffd5b803567ffffffffffffffff811115610738575f5ffd5b8860208260051b840101111561074c575f5ffd5b959894975060200195606001359392505050565b5f5f5f5f60808587031215610773575f5ffd5b61077c856105d0565b9350602085013592506107916040860161058c565b9396929550929360600135925050565b818103818111156101ef577f4e487b71000000000000000000000000000000000000000000000000000000005f52601160045260245ffd5b5f8261080c577f4e487b71000000000000000000000000000000000000000000000000000000005f52601260045260245ffd5b500690565b60208152816020820152818360408301375f818301604090810191909152601f9092017fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe0160101919050565b7f4e487b71000000000000000000000000000000000000000000000000000000005f52603260045260245ffd",
}

// EpochAnchor is an auto generated Go binding around an Ethereum contract.
type EpochAnchor struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *EpochAnchor) GetABI() abi.ABI {
	return c.abi
}

// NewEpochAnchor creates a new instance of EpochAnchor.
func NewEpochAnchor() *EpochAnchor {
	parsed, err := EpochAnchorMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &EpochAnchor{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *EpochAnchor) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackAnchor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7f00e393.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function anchor(bytes32 logId, uint64 epoch, bytes32 root, bytes32 prevRoot) returns()
func (epochAnchor *EpochAnchor) PackAnchor(logId [32]byte, epoch uint64, root [32]byte, prevRoot [32]byte) []byte {
	enc, err := epochAnchor.abi.Pack("anchor", logId, epoch, root, prevRoot)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAnchor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7f00e393.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function anchor(bytes32 logId, uint64 epoch, bytes32 root, bytes32 prevRoot) returns()
func (epochAnchor *EpochAnchor) TryPackAnchor(logId [32]byte, epoch uint64, root [32]byte, prevRoot [32]byte) ([]byte, error) {
	return epochAnchor.abi.Pack("anchor", logId, epoch, root, prevRoot)
}

// PackAnchorBatch is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x38418327.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function anchorBatch(uint64 batch, bytes32 root, bytes32 prevRoot, bytes entries) returns()
func (epochAnchor *EpochAnchor) PackAnchorBatch(batch uint64, root [32]byte, prevRoot [32]byte, entries []byte) []byte {
	enc, err := epochAnchor.abi.Pack("anchorBatch", batch, root, prevRoot, entries)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAnchorBatch is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x38418327.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function anchorBatch(uint64 batch, bytes32 root, bytes32 prevRoot, bytes entries) returns()
func (epochAnchor *EpochAnchor) TryPackAnchorBatch(batch uint64, root [32]byte, prevRoot [32]byte, entries []byte) ([]byte, error) {
	return epochAnchor.abi.Pack("anchorBatch", batch, root, prevRoot, entries)
}

// PackAnchorRoots is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8e2d7f15.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function anchorRoots(bytes32 logId, uint64 epoch, bytes32[] roots, bytes32 prevRoot) returns()
func (epochAnchor *EpochAnchor) PackAnchorRoots(logId [32]byte, epoch uint64, roots [][32]byte, prevRoot [32]byte) []byte {
	enc, err := epochAnchor.abi.Pack("anchorRoots", logId, epoch, roots, prevRoot)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAnchorRoots is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8e2d7f15.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function anchorRoots(bytes32 logId, uint64 epoch, bytes32[] roots, bytes32 prevRoot) returns()
func (epochAnchor *EpochAnchor) TryPackAnchorRoots(logId [32]byte, epoch uint64, roots [][32]byte, prevRoot [32]byte) ([]byte, error) {
	return epochAnchor.abi.Pack("anchorRoots", logId, epoch, roots, prevRoot)
}

// PackCommitmentOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0e78187d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function commitmentOf(uint64 epoch, bytes32 root) pure returns(bytes24)
func (epochAnchor *EpochAnchor) PackCommitmentOf(epoch uint64, root [32]byte) []byte {
	enc, err := epochAnchor.abi.Pack("commitmentOf", epoch, root)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCommitmentOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0e78187d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function commitmentOf(uint64 epoch, bytes32 root) pure returns(bytes24)
func (epochAnchor *EpochAnchor) TryPackCommitmentOf(epoch uint64, root [32]byte) ([]byte, error) {
	return epochAnchor.abi.Pack("commitmentOf", epoch, root)
}

// UnpackCommitmentOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x0e78187d.
//
// Solidity: function commitmentOf(uint64 epoch, bytes32 root) pure returns(bytes24)
func (epochAnchor *EpochAnchor) UnpackCommitmentOf(data []byte) ([24]byte, error) {
	out, err := epochAnchor.abi.Unpack("commitmentOf", data)
	if err != nil {
		return *new([24]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([24]byte)).(*[24]byte)
	return out0, nil
}

// PackHead is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x24e8393d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function head(address operator, bytes32 logId) view returns(bool anchored, uint64 epoch, bytes24 commitment)
func (epochAnchor *EpochAnchor) PackHead(operator common.Address, logId [32]byte) []byte {
	enc, err := epochAnchor.abi.Pack("head", operator, logId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackHead is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x24e8393d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function head(address operator, bytes32 logId) view returns(bool anchored, uint64 epoch, bytes24 commitment)
func (epochAnchor *EpochAnchor) TryPackHead(operator common.Address, logId [32]byte) ([]byte, error) {
	return epochAnchor.abi.Pack("head", operator, logId)
}

// HeadOutput serves as a container for the return parameters of contract
// method Head.
type HeadOutput struct {
	Anchored   bool
	Epoch      uint64
	Commitment [24]byte
}

// UnpackHead is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x24e8393d.
//
// Solidity: function head(address operator, bytes32 logId) view returns(bool anchored, uint64 epoch, bytes24 commitment)
func (epochAnchor *EpochAnchor) UnpackHead(data []byte) (HeadOutput, error) {
	out, err := epochAnchor.abi.Unpack("head", data)
	outstruct := new(HeadOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Anchored = *abi.ConvertType(out[0], new(bool)).(*bool)
	outstruct.Epoch = *abi.ConvertType(out[1], new(uint64)).(*uint64)
	outstruct.Commitment = *abi.ConvertType(out[2], new([24]byte)).(*[24]byte)
	return *outstruct, nil
}

// PackIsHead is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcff2795f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isHead(address operator, bytes32 logId, uint64 epoch, bytes32 root) view returns(bool)
func (epochAnchor *EpochAnchor) PackIsHead(operator common.Address, logId [32]byte, epoch uint64, root [32]byte) []byte {
	enc, err := epochAnchor.abi.Pack("isHead", operator, logId, epoch, root)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsHead is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcff2795f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isHead(address operator, bytes32 logId, uint64 epoch, bytes32 root) view returns(bool)
func (epochAnchor *EpochAnchor) TryPackIsHead(operator common.Address, logId [32]byte, epoch uint64, root [32]byte) ([]byte, error) {
	return epochAnchor.abi.Pack("isHead", operator, logId, epoch, root)
}

// UnpackIsHead is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xcff2795f.
//
// Solidity: function isHead(address operator, bytes32 logId, uint64 epoch, bytes32 root) view returns(bool)
func (epochAnchor *EpochAnchor) UnpackIsHead(data []byte) (bool, error) {
	out, err := epochAnchor.abi.Unpack("isHead", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackNextEpoch is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfc601a54.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function nextEpoch(address operator, bytes32 logId) view returns(uint64)
func (epochAnchor *EpochAnchor) PackNextEpoch(operator common.Address, logId [32]byte) []byte {
	enc, err := epochAnchor.abi.Pack("nextEpoch", operator, logId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackNextEpoch is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfc601a54.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function nextEpoch(address operator, bytes32 logId) view returns(uint64)
func (epochAnchor *EpochAnchor) TryPackNextEpoch(operator common.Address, logId [32]byte) ([]byte, error) {
	return epochAnchor.abi.Pack("nextEpoch", operator, logId)
}

// UnpackNextEpoch is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xfc601a54.
//
// Solidity: function nextEpoch(address operator, bytes32 logId) view returns(uint64)
func (epochAnchor *EpochAnchor) UnpackNextEpoch(data []byte) (uint64, error) {
	out, err := epochAnchor.abi.Unpack("nextEpoch", data)
	if err != nil {
		return *new(uint64), err
	}
	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)
	return out0, nil
}

// EpochAnchorAnchored represents a Anchored event raised by the EpochAnchor contract.
type EpochAnchorAnchored struct {
	Operator common.Address
	LogId    [32]byte
	Epoch    uint64
	Root     [32]byte
	PrevRoot [32]byte
	Raw      *types.Log // Blockchain specific contextual infos
}

const EpochAnchorAnchoredEventName = "Anchored"

// ContractEventName returns the user-defined event name.
func (EpochAnchorAnchored) ContractEventName() string {
	return EpochAnchorAnchoredEventName
}

// UnpackAnchoredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Anchored(address indexed operator, bytes32 indexed logId, uint64 indexed epoch, bytes32 root, bytes32 prevRoot)
func (epochAnchor *EpochAnchor) UnpackAnchoredEvent(log *types.Log) (*EpochAnchorAnchored, error) {
	event := "Anchored"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != epochAnchor.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(EpochAnchorAnchored)
	if len(log.Data) > 0 {
		if err := epochAnchor.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range epochAnchor.abi.Events[event].Inputs {
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

// EpochAnchorBatchContents represents a BatchContents event raised by the EpochAnchor contract.
type EpochAnchorBatchContents struct {
	Operator common.Address
	Batch    uint64
	Entries  []byte
	Raw      *types.Log // Blockchain specific contextual infos
}

const EpochAnchorBatchContentsEventName = "BatchContents"

// ContractEventName returns the user-defined event name.
func (EpochAnchorBatchContents) ContractEventName() string {
	return EpochAnchorBatchContentsEventName
}

// UnpackBatchContentsEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event BatchContents(address indexed operator, uint64 indexed batch, bytes entries)
func (epochAnchor *EpochAnchor) UnpackBatchContentsEvent(log *types.Log) (*EpochAnchorBatchContents, error) {
	event := "BatchContents"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != epochAnchor.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(EpochAnchorBatchContents)
	if len(log.Data) > 0 {
		if err := epochAnchor.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range epochAnchor.abi.Events[event].Inputs {
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
func (epochAnchor *EpochAnchor) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], epochAnchor.abi.Errors["BackPointerMismatch"].ID.Bytes()[:4]) {
		return epochAnchor.UnpackBackPointerMismatchError(raw[4:])
	}
	if bytes.Equal(raw[:4], epochAnchor.abi.Errors["EmptyRun"].ID.Bytes()[:4]) {
		return epochAnchor.UnpackEmptyRunError(raw[4:])
	}
	if bytes.Equal(raw[:4], epochAnchor.abi.Errors["EpochOutOfOrder"].ID.Bytes()[:4]) {
		return epochAnchor.UnpackEpochOutOfOrderError(raw[4:])
	}
	if bytes.Equal(raw[:4], epochAnchor.abi.Errors["GenesisBackPointerNotZero"].ID.Bytes()[:4]) {
		return epochAnchor.UnpackGenesisBackPointerNotZeroError(raw[4:])
	}
	if bytes.Equal(raw[:4], epochAnchor.abi.Errors["MalformedBatch"].ID.Bytes()[:4]) {
		return epochAnchor.UnpackMalformedBatchError(raw[4:])
	}
	if bytes.Equal(raw[:4], epochAnchor.abi.Errors["ZeroRoot"].ID.Bytes()[:4]) {
		return epochAnchor.UnpackZeroRootError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// EpochAnchorBackPointerMismatch represents a BackPointerMismatch error raised by the EpochAnchor contract.
type EpochAnchorBackPointerMismatch struct {
	Epoch    uint64
	PrevRoot [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BackPointerMismatch(uint64 epoch, bytes32 prevRoot)
func EpochAnchorBackPointerMismatchErrorID() common.Hash {
	return common.HexToHash("0xbfc3f7290ca64d2963c76918d1102ad92988143bf3f455e68865d11bd1df9b32")
}

// UnpackBackPointerMismatchError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BackPointerMismatch(uint64 epoch, bytes32 prevRoot)
func (epochAnchor *EpochAnchor) UnpackBackPointerMismatchError(raw []byte) (*EpochAnchorBackPointerMismatch, error) {
	out := new(EpochAnchorBackPointerMismatch)
	if err := epochAnchor.abi.UnpackIntoInterface(out, "BackPointerMismatch", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// EpochAnchorEmptyRun represents a EmptyRun error raised by the EpochAnchor contract.
type EpochAnchorEmptyRun struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptyRun()
func EpochAnchorEmptyRunErrorID() common.Hash {
	return common.HexToHash("0x0e203b22bfdfd03d064c1acbec603ce4f36f0c7c179303fa5105cb0da00b5264")
}

// UnpackEmptyRunError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptyRun()
func (epochAnchor *EpochAnchor) UnpackEmptyRunError(raw []byte) (*EpochAnchorEmptyRun, error) {
	out := new(EpochAnchorEmptyRun)
	if err := epochAnchor.abi.UnpackIntoInterface(out, "EmptyRun", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// EpochAnchorEpochOutOfOrder represents a EpochOutOfOrder error raised by the EpochAnchor contract.
type EpochAnchorEpochOutOfOrder struct {
	Epoch    uint64
	Expected uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EpochOutOfOrder(uint64 epoch, uint64 expected)
func EpochAnchorEpochOutOfOrderErrorID() common.Hash {
	return common.HexToHash("0xaafac234781fe28ed2d4f94a073c37ac514846bc5412616578ec644fcd9a2f7f")
}

// UnpackEpochOutOfOrderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EpochOutOfOrder(uint64 epoch, uint64 expected)
func (epochAnchor *EpochAnchor) UnpackEpochOutOfOrderError(raw []byte) (*EpochAnchorEpochOutOfOrder, error) {
	out := new(EpochAnchorEpochOutOfOrder)
	if err := epochAnchor.abi.UnpackIntoInterface(out, "EpochOutOfOrder", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// EpochAnchorGenesisBackPointerNotZero represents a GenesisBackPointerNotZero error raised by the EpochAnchor contract.
type EpochAnchorGenesisBackPointerNotZero struct {
	PrevRoot [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error GenesisBackPointerNotZero(bytes32 prevRoot)
func EpochAnchorGenesisBackPointerNotZeroErrorID() common.Hash {
	return common.HexToHash("0x7b1f9093490212492338089bed0044fb9b8efb2a42b29d5f9c4b3ed6ad9c3bd8")
}

// UnpackGenesisBackPointerNotZeroError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error GenesisBackPointerNotZero(bytes32 prevRoot)
func (epochAnchor *EpochAnchor) UnpackGenesisBackPointerNotZeroError(raw []byte) (*EpochAnchorGenesisBackPointerNotZero, error) {
	out := new(EpochAnchorGenesisBackPointerNotZero)
	if err := epochAnchor.abi.UnpackIntoInterface(out, "GenesisBackPointerNotZero", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// EpochAnchorMalformedBatch represents a MalformedBatch error raised by the EpochAnchor contract.
type EpochAnchorMalformedBatch struct {
	Length *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error MalformedBatch(uint256 length)
func EpochAnchorMalformedBatchErrorID() common.Hash {
	return common.HexToHash("0x70ac562d39aac733368e4feca6c3c85dd40665c1cb8c23336e1557fd5d7b1730")
}

// UnpackMalformedBatchError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error MalformedBatch(uint256 length)
func (epochAnchor *EpochAnchor) UnpackMalformedBatchError(raw []byte) (*EpochAnchorMalformedBatch, error) {
	out := new(EpochAnchorMalformedBatch)
	if err := epochAnchor.abi.UnpackIntoInterface(out, "MalformedBatch", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// EpochAnchorZeroRoot represents a ZeroRoot error raised by the EpochAnchor contract.
type EpochAnchorZeroRoot struct {
	Epoch uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ZeroRoot(uint64 epoch)
func EpochAnchorZeroRootErrorID() common.Hash {
	return common.HexToHash("0x41408c49c7455d6b3db7c5a737926540f348e948ab25e21d2c781fe9691a0986")
}

// UnpackZeroRootError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ZeroRoot(uint64 epoch)
func (epochAnchor *EpochAnchor) UnpackZeroRootError(raw []byte) (*EpochAnchorZeroRoot, error) {
	out := new(EpochAnchorZeroRoot)
	if err := epochAnchor.abi.UnpackIntoInterface(out, "ZeroRoot", raw); err != nil {
		return nil, err
	}
	return out, nil
}
