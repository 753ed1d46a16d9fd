package checkpoint

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
)

// GenerateKey returns a new Ed25519 note key named name: the signer key
// (skey, "PRIVATE+KEY+name+hash+key": keep it secret) and its verifier key
// (vkey, "name+hash+key": publish it). The same key serves as an
// operator's checkpoint key and, given to a witness, as a cosignature/v1
// witness key. rand nil means crypto/rand.
func GenerateKey(rnd io.Reader, name string) (skey, vkey string, err error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	if name == "" || !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || r == '+' }) {
		err = errors.New("not a valid key name")
	} else {
		skey, vkey, err = note.GenerateKey(rnd, name)
	}
	if err != nil {
		return "", "", fmt.Errorf("checkpoint: key name %q: %v (want a non-empty name without spaces or '+', e.g. example.com/operator)", name, err)
	}
	return skey, vkey, nil
}

// WriteKey writes a new key pair: the signer key to path (mode 0600) and
// the verifier key to path + ".vkey". It refuses to replace an existing
// signer key.
func WriteKey(path, name string) (vkey string, err error) {
	skey, vkey, err := GenerateKey(nil, name)
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("checkpoint: %s exists: refusing to replace a signing key (remove it first if that is what you want)", path)
	}
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(skey + "\n"); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return vkey, os.WriteFile(path+".vkey", []byte(vkey+"\n"), 0o644)
}

// KeyError is a key that is not the note key wanted, as GenerateKey makes
// them: a signer key file (Signer set, Key its path) that does not hold
// "PRIVATE+KEY+name+hash+key", or the operator's verifier key (Key the key
// as given) that is not "name+hash+key". Err says why.
type KeyError struct {
	Signer bool
	Key    string
	Err    error
}

func (e *KeyError) Error() string {
	if e.Signer {
		return fmt.Sprintf("checkpoint: %s is not an Ed25519 note signer key (%v): want PRIVATE+KEY+name+hash+key", e.Key, e.Err)
	}
	return fmt.Sprintf("checkpoint: operator verifier key %q: %v (want name+hash+key)", e.Key, e.Err)
}

func (e *KeyError) Unwrap() error { return e.Err }

// ReadSigner reads an Ed25519 signer key written by WriteKey, and returns
// it with the verifier of its signatures (else a *KeyError).
func ReadSigner(path string) (note.Signer, note.Verifier, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	s, v, err := fnote.NewEd25519SignerVerifier(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, nil, &KeyError{Signer: true, Key: path, Err: err}
	}
	return s, v, nil
}

// ReadVKey returns a verifier key given inline ("name+hash+key") or as the
// path of a file holding one.
func ReadVKey(s string) (string, error) {
	if strings.Count(s, "+") == 2 && !strings.ContainsAny(s, " \n") {
		if _, err := os.Stat(s); err != nil {
			return s, nil // not a file: the key itself
		}
	}
	b, err := os.ReadFile(s)
	if err != nil {
		return "", fmt.Errorf("checkpoint: %q is neither a verifier key (name+hash+key) nor a readable file: %v", s, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// ReadCosigner reads an Ed25519 signer key written by WriteKey as a
// witness's cosignature/v1 signer (C2SP tlog-cosignature, timestamped
// now), else a *KeyError. Its verifier key, for the witnesses of a
// Policy, is the key's vkey (NewPolicy reads it as cosignature/v1).
func ReadCosigner(path string) (note.Signer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := fnote.NewSignerForCosignatureV1(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, &KeyError{Signer: true, Key: path, Err: err}
	}
	return s, nil
}
