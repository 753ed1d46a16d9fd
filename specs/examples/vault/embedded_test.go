package vault

// The embedded chain — go-ethereum's node in the test process — is linked
// only into a test binary that imports it, as this file does: the attacks
// record evidence (Config.RPC, a chain that serves JSON-RPC, which the
// embedded chain does), and AFR_BACKEND=embedded runs the cheatcode specs
// there. Without this import a spec module builds without the node (its
// first build minutes shorter), and asking for the embedded backend is an
// error naming this import.
import _ "github.com/agentflightrecorder/afr/chain/backend/embedded"
