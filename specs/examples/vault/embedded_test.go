//go:build embedded

package vault

// The embedded chain — go-ethereum's node in the test process — is linked
// only into a test binary that imports it, as this file does under the
// "embedded" build tag: `AFR_BACKEND=embedded go test -tags embedded ./...`
// runs the specs there. Without the tag the module builds without the node
// (its first build minutes shorter), and asking for the embedded backend is
// an error naming this import.
import _ "github.com/agentflightrecorder/afr/chain/backend/embedded"
