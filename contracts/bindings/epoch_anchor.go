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
	ABI: "[{\"type\":\"function\",\"name\":\"anchor\",\"inputs\":[{\"name\":\"epoch\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"root\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"},{\"name\":\"prevRoot\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"outputs\":[],\"stateMutability\":\"nonpayable\"},{\"type\":\"function\",\"name\":\"commitmentOf\",\"inputs\":[{\"name\":\"epoch\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"root\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"outputs\":[{\"name\":\"\",\"type\":\"bytes24\",\"internalType\":\"bytes24\"}],\"stateMutability\":\"pure\"},{\"type\":\"function\",\"name\":\"head\",\"inputs\":[{\"name\":\"operator\",\"type\":\"address\",\"internalType\":\"address\"}],\"outputs\":[{\"name\":\"anchored\",\"type\":\"bool\",\"internalType\":\"bool\"},{\"name\":\"epoch\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"commitment\",\"type\":\"bytes24\",\"internalType\":\"bytes24\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"isHead\",\"inputs\":[{\"name\":\"operator\",\"type\":\"address\",\"internalType\":\"address\"},{\"name\":\"epoch\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"root\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}],\"outputs\":[{\"name\":\"\",\"type\":\"bool\",\"internalType\":\"bool\"}],\"stateMutability\":\"view\"},{\"type\":\"function\",\"name\":\"nextEpoch\",\"inputs\":[{\"name\":\"operator\",\"type\":\"address\",\"internalType\":\"address\"}],\"outputs\":[{\"name\":\"\",\"type\":\"uint64\",\"internalType\":\"uint64\"}],\"stateMutability\":\"view\"},{\"type\":\"event\",\"name\":\"Anchored\",\"inputs\":[{\"name\":\"operator\",\"type\":\"address\",\"indexed\":true,\"internalType\":\"address\"},{\"name\":\"epoch\",\"type\":\"uint64\",\"indexed\":true,\"internalType\":\"uint64\"},{\"name\":\"root\",\"type\":\"bytes32\",\"indexed\":false,\"internalType\":\"bytes32\"},{\"name\":\"prevRoot\",\"type\":\"bytes32\",\"indexed\":false,\"internalType\":\"bytes32\"}],\"anonymous\":false},{\"type\":\"error\",\"name\":\"BackPointerMismatch\",\"inputs\":[{\"name\":\"epoch\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"prevRoot\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]},{\"type\":\"error\",\"name\":\"EpochOutOfOrder\",\"inputs\":[{\"name\":\"epoch\",\"type\":\"uint64\",\"internalType\":\"uint64\"},{\"name\":\"expected\",\"type\":\"uint64\",\"internalType\":\"uint64\"}]},{\"type\":\"error\",\"name\":\"GenesisBackPointerNotZero\",\"inputs\":[{\"name\":\"prevRoot\",\"type\":\"bytes32\",\"internalType\":\"bytes32\"}]},{\"type\":\"error\",\"name\":\"ZeroRoot\",\"inputs\":[{\"name\":\"epoch\",\"type\":\"uint64\",\"internalType\":\"uint64\"}]}]",
	ID:  "EpochAnchor",
	Bin: "0x6080604052348015600e575f5ffd5b506104e58061001c5f395ff3fe608060405234801561000f575f5ffd5b5060043610610064575f3560e01c8063839a26521161004d578063839a2652146100c6578063bda4fec514610117578063e1dcb83614610172575f5ffd5b80630e78187d146100685780637494b1af146100b1575b5f5ffd5b61007b6100763660046103d8565b610195565b6040517fffffffffffffffffffffffffffffffffffffffffffffffff000000000000000090911681526020015b60405180910390f35b6100c46100bf366004610400565b6101d1565b005b6100fe6100d4366004610453565b73ffffffffffffffffffffffffffffffffffffffff165f9081526020819052604090205460c01c90565b60405167ffffffffffffffff90911681526020016100a8565b61012a610125366004610453565b6102d0565b60408051931515845267ffffffffffffffff90921660208401527fffffffffffffffffffffffffffffffffffffffffffffffff000000000000000016908201526060016100a8565b610185610180366004610473565b610331565b60405190151581526020016100a8565b6040805167ffffffffffffffff8416602080830191909152818301849052825180830384018152606090920183528151910120901b5b92915050565b335f525f60205260405f2080548060c01c8086146102075760405163aafac23460e01b8152866004820152816024820152604481fd5b508361021e576341408c495f52846020526024601cfd5b84801561026857600186035f52836020528160401b60401c60405f2060401b60401c146102635760405163bfc3f72960e01b8152866004820152846024820152604481fd5b61027f565b831561027f57637b1f90935f52836020526024601cfd5b5050835f528260205260405f2060401b60401c6001850160c01b17815550815f528060205282337fd6f0f013808bc2f1d448753205790daee522b8c2904b0d109ec4099b097c8eae60405fa3505050565b73ffffffffffffffffffffffffffffffffffffffff81165f908152602081905260408120548190819080820361030f57505f925082915081905061032a565b600161031f8160c084901c6104ad565b909450925060401b90505b9193909250565b73ffffffffffffffffffffffffffffffffffffffff83165f908152602081905260408120548015801590610386575067ffffffffffffffff841661037a600160c084901c6104ad565b67ffffffffffffffff16145b80156103b357506103978484610195565b67ffffffffffffffff19168160401b67ffffffffffffffff1916145b95945050505050565b803567ffffffffffffffff811681146103d3575f5ffd5b919050565b5f5f604083850312156103e9575f5ffd5b6103f2836103bc565b946020939093013593505050565b5f5f5f60608486031215610412575f5ffd5b61041b846103bc565b95602085013595506040909401359392505050565b803573ffffffffffffffffffffffffffffffffffffffff811681146103d3575f5ffd5b5f60208284031215610463575f5ffd5b61046c82610430565b9392505050565b5f5f5f60608486031215610485575f5ffd5b61048e84610430565b925061049c602085016103bc565b929592945050506040919091013590565b818103818111156101cb577f4e487b71000000000000000000000000000000000000000000000000000000005f52601160045260245ffd",
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
// the contract method with ID 0x7494b1af.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function anchor(uint64 epoch, bytes32 root, bytes32 prevRoot) returns()
func (epochAnchor *EpochAnchor) PackAnchor(epoch uint64, root [32]byte, prevRoot [32]byte) []byte {
	enc, err := epochAnchor.abi.Pack("anchor", epoch, root, prevRoot)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAnchor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7494b1af.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function anchor(uint64 epoch, bytes32 root, bytes32 prevRoot) returns()
func (epochAnchor *EpochAnchor) TryPackAnchor(epoch uint64, root [32]byte, prevRoot [32]byte) ([]byte, error) {
	return epochAnchor.abi.Pack("anchor", epoch, root, prevRoot)
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
// the contract method with ID 0xbda4fec5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function head(address operator) view returns(bool anchored, uint64 epoch, bytes24 commitment)
func (epochAnchor *EpochAnchor) PackHead(operator common.Address) []byte {
	enc, err := epochAnchor.abi.Pack("head", operator)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackHead is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbda4fec5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function head(address operator) view returns(bool anchored, uint64 epoch, bytes24 commitment)
func (epochAnchor *EpochAnchor) TryPackHead(operator common.Address) ([]byte, error) {
	return epochAnchor.abi.Pack("head", operator)
}

// HeadOutput serves as a container for the return parameters of contract
// method Head.
type HeadOutput struct {
	Anchored   bool
	Epoch      uint64
	Commitment [24]byte
}

// UnpackHead is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xbda4fec5.
//
// Solidity: function head(address operator) view returns(bool anchored, uint64 epoch, bytes24 commitment)
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
// the contract method with ID 0xe1dcb836.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isHead(address operator, uint64 epoch, bytes32 root) view returns(bool)
func (epochAnchor *EpochAnchor) PackIsHead(operator common.Address, epoch uint64, root [32]byte) []byte {
	enc, err := epochAnchor.abi.Pack("isHead", operator, epoch, root)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsHead is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe1dcb836.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isHead(address operator, uint64 epoch, bytes32 root) view returns(bool)
func (epochAnchor *EpochAnchor) TryPackIsHead(operator common.Address, epoch uint64, root [32]byte) ([]byte, error) {
	return epochAnchor.abi.Pack("isHead", operator, epoch, root)
}

// UnpackIsHead is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe1dcb836.
//
// Solidity: function isHead(address operator, uint64 epoch, bytes32 root) view returns(bool)
func (epochAnchor *EpochAnchor) UnpackIsHead(data []byte) (bool, error) {
	out, err := epochAnchor.abi.Unpack("isHead", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackNextEpoch is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x839a2652.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function nextEpoch(address operator) view returns(uint64)
func (epochAnchor *EpochAnchor) PackNextEpoch(operator common.Address) []byte {
	enc, err := epochAnchor.abi.Pack("nextEpoch", operator)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackNextEpoch is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x839a2652.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function nextEpoch(address operator) view returns(uint64)
func (epochAnchor *EpochAnchor) TryPackNextEpoch(operator common.Address) ([]byte, error) {
	return epochAnchor.abi.Pack("nextEpoch", operator)
}

// UnpackNextEpoch is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x839a2652.
//
// Solidity: function nextEpoch(address operator) view returns(uint64)
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
// Solidity: event Anchored(address indexed operator, uint64 indexed epoch, bytes32 root, bytes32 prevRoot)
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

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (epochAnchor *EpochAnchor) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], epochAnchor.abi.Errors["BackPointerMismatch"].ID.Bytes()[:4]) {
		return epochAnchor.UnpackBackPointerMismatchError(raw[4:])
	}
	if bytes.Equal(raw[:4], epochAnchor.abi.Errors["EpochOutOfOrder"].ID.Bytes()[:4]) {
		return epochAnchor.UnpackEpochOutOfOrderError(raw[4:])
	}
	if bytes.Equal(raw[:4], epochAnchor.abi.Errors["GenesisBackPointerNotZero"].ID.Bytes()[:4]) {
		return epochAnchor.UnpackGenesisBackPointerNotZeroError(raw[4:])
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
