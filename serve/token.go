package serve

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"

	"github.com/agentflightrecorder/afr/internal/loopback"
)

// LoadOrCreateToken returns the bearer token in path, creating the file
// (mode 0600, 32 random bytes in hex) when it does not exist. A token file
// that others may read, or an empty one, is refused.
func LoadOrCreateToken(path string) (token string, created bool, err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		var b [32]byte
		rand.Read(b[:])
		token = hex.EncodeToString(b[:])
		_, err = f.WriteString(token + "\n")
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", false, fmt.Errorf("serve: writing the token file %s: %w", path, err)
		}
		return token, true, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return "", false, fmt.Errorf("serve: creating the token file: %w", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", false, err
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", false, fmt.Errorf("serve: the token file %s has mode %04o: others may read it (hint: chmod 600 %s)", path, st.Mode().Perm(), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false, err
	}
	if token = strings.TrimSpace(string(b)); token == "" {
		return "", false, fmt.Errorf("serve: the token file %s is empty (hint: delete it and a new token is created)", path)
	}
	return token, false, nil
}

// NotLoopbackError is returned by CheckListen for an address that other
// hosts could reach: serving there takes allowRemote (Config.AllowRemote),
// and TLS in front, since the API has none.
type NotLoopbackError struct {
	Addr string
}

func (e *NotLoopbackError) Error() string {
	return fmt.Sprintf("serve: %q is not a loopback address: other hosts could reach the API", e.Addr)
}

// CheckListen refuses an address other than a loopback one unless
// allowRemote (a *NotLoopbackError): the API is meant for agents on the
// same host.
func CheckListen(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("serve: listen address %q: %w (want HOST:PORT, e.g. 127.0.0.1:8787)", addr, err)
	}
	if allowRemote || loopback.IsLoopback(host) {
		return nil
	}
	return &NotLoopbackError{Addr: addr}
}
