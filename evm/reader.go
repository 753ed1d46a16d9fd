package evm

// Fork as go-ethereum's state.Reader.

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

func (f *Fork) noteSticky(err error) {
	f.mu.Lock()
	if f.sticky == nil {
		f.sticky = err
	}
	f.mu.Unlock()
}

// codeErr returns the first failure of a read that go-ethereum's reader
// interface cannot report (code, block hashes).
func (f *Fork) codeErr() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sticky
}

// Account implements state.Reader: nil for an account that does not exist.
func (f *Fork) Account(addr common.Address) (*types.StateAccount, error) {
	k := fetchKey{kind: kindAccount, addr: addr}
	f.mu.Lock()
	a, ok := f.accounts[addr]
	f.mu.Unlock()
	if !ok {
		if err := f.load(f.ctx, []fetchKey{k}); err != nil {
			return nil, err
		}
		f.mu.Lock()
		a = f.accounts[addr]
		f.mu.Unlock()
	} else {
		f.hits.Add(1)
	}
	if a == nil {
		return nil, nil
	}
	bal, _ := uint256.FromBig(a.Balance.ToInt())
	return &types.StateAccount{
		Nonce:    uint64(a.Nonce),
		Balance:  bal,
		Root:     types.EmptyRootHash, // unknown and unused: the trie is never opened
		CodeHash: a.CodeHash.Bytes(),
	}, nil
}

// Storage implements state.Reader.
func (f *Fork) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	f.mu.Lock()
	v, ok := f.storage[addr][slot]
	f.mu.Unlock()
	if ok {
		f.hits.Add(1)
		return v, nil
	}
	if err := f.load(f.ctx, []fetchKey{{kind: kindStorage, addr: addr, slot: slot}}); err != nil {
		return common.Hash{}, err
	}
	f.mu.Lock()
	v = f.storage[addr][slot]
	f.mu.Unlock()
	return v, nil
}

// Code implements state.ContractCodeReader. The interface has no error
// result: a failure is kept and returned by the Env after execution.
func (f *Fork) Code(addr common.Address, codeHash common.Hash) []byte {
	if codeHash == types.EmptyCodeHash || codeHash == (common.Hash{}) {
		return nil
	}
	f.mu.Lock()
	c, ok := f.codes[codeHash]
	f.mu.Unlock()
	if ok {
		f.hits.Add(1)
		return c
	}
	if err := f.load(f.ctx, []fetchKey{{kind: kindCode, addr: addr, slot: codeHash}}); err != nil {
		f.noteSticky(err)
		return nil
	}
	f.mu.Lock()
	c = f.codes[codeHash]
	f.mu.Unlock()
	return c
}

// CodeSize implements state.ContractCodeReader.
func (f *Fork) CodeSize(addr common.Address, codeHash common.Hash) int {
	return len(f.Code(addr, codeHash))
}

// Has implements state.ContractCodeReader.
func (f *Fork) Has(addr common.Address, codeHash common.Hash) bool {
	return len(f.Code(addr, codeHash)) > 0
}
