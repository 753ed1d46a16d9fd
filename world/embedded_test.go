package world_test

// The World's tests start the embedded chain too (Config.RPC, BlockTime,
// Backend: backend.KindEmbedded): link it, as every program that starts
// one does.
import _ "github.com/agentflightrecorder/afr/chain/backend/embedded"
