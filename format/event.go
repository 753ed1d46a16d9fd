package format

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Version is the version of the record, payload and epoch-header
// formats this package writes (docs/SPEC.md). Readers refuse newer versions
// and read every older one. Version 2 changed the encrypted payload frame
// alone (ModeEncryptedV2 for ModeEncrypted; FrameMode); version 3 added the
// kinds response and reasoning, the record fields event_time, run and id,
// and the payload fields execution.output, context.parent_ids and content
// (their objects are otherwise those of version 2). Records and epoch
// headers carry the version of the log that holds them.
const Version = 3

// versionFields is the first format version with kinds 7 and 8 and the
// fields of version 3.
const versionFields = 3

// Digest is a SHA-256 digest. It encodes as a 32-byte CBOR byte string and as
// a 0x-prefixed hex string in JSON.
type Digest [32]byte

// String returns the digest as 0x-prefixed hex.
func (d Digest) String() string { return "0x" + hex.EncodeToString(d[:]) }

// IsZero reports whether d is all zeros.
func (d Digest) IsZero() bool { return d == Digest{} }

// MarshalText implements encoding.TextMarshaler (used by encoding/json).
func (d Digest) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Digest) UnmarshalText(b []byte) error {
	s := string(b)
	if len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X") {
		s = s[2:]
	}
	if len(s) != 64 {
		return fmt.Errorf("digest: %d hex digits, want 64", len(s))
	}
	_, err := hex.Decode(d[:], []byte(s))
	return err
}

// Bytes is a byte string: a CBOR byte string on the wire and 0x-prefixed
// hex in JSON.
type Bytes []byte

// String returns b as 0x-prefixed hex.
func (b Bytes) String() string { return "0x" + hex.EncodeToString(b) }

// MarshalText implements encoding.TextMarshaler.
func (b Bytes) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler; the 0x prefix is optional.
func (b *Bytes) UnmarshalText(t []byte) error {
	s := string(t)
	if len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X") {
		s = s[2:]
	}
	v, err := hex.DecodeString(s)
	if err != nil {
		return fmt.Errorf("bytes: %w", err)
	}
	*b = v
	return nil
}

// SessionID identifies one log: every record and epoch header carries it, so
// records of another session cannot be spliced in unnoticed.
type SessionID [16]byte

// String returns the session id as hex.
func (s SessionID) String() string { return hex.EncodeToString(s[:]) }

// MarshalText implements encoding.TextMarshaler.
func (s SessionID) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler: 32 lowercase hex
// digits, the one form String writes (docs/SPEC.md, "Log: store layout"),
// so that one session has one text.
func (s *SessionID) UnmarshalText(b []byte) error {
	if len(b) != 32 {
		return fmt.Errorf("session id: %d hex digits, want 32", len(b))
	}
	var id SessionID
	if _, err := hex.Decode(id[:], b); err != nil || hex.EncodeToString(id[:]) != string(b) {
		return fmt.Errorf("session id %q: want 32 lowercase hex digits", b)
	}
	*s = id
	return nil
}

// Kind says what an event is. Kinds are small integers on the wire.
type Kind uint8

// Event kinds.
const (
	KindToolCall    Kind = 1 // an agent's tool call (shell, file, API, DB, retrieval, code)
	KindApproval    Kind = 2 // a human approval gate
	KindDelegation  Kind = 3 // delegation of a task or authority to another agent
	KindChainTx     Kind = 4 // an on-chain transaction through the PACE account
	KindPolicy      Kind = 5 // a policy decision recorded on its own (e.g. a denial)
	KindObservation Kind = 6 // an input the agent received (retrieval result, message)
	// KindResponse is text the model produced for the user or a tool
	// (format version 3).
	KindResponse Kind = 7
	// KindReasoning is model reasoning that the operator chose to record,
	// kept apart from intents, which are never chain-of-thought (format
	// version 3).
	KindReasoning Kind = 8
)

var kindNames = enumNames[Kind]{
	KindToolCall: "tool_call", KindApproval: "approval", KindDelegation: "delegation",
	KindChainTx: "chain_tx", KindPolicy: "policy", KindObservation: "observation",
	KindResponse: "response", KindReasoning: "reasoning",
}

// Since returns the first format version that has kind k.
func (k Kind) Since() uint8 {
	if k >= KindResponse {
		return versionFields
	}
	return 1
}

// enumNames names the values of an enumeration, indexed by value (a slice,
// not a map: Valid runs for every event on the write and read paths).
type enumNames[T ~uint8] []string

// name returns the name of v, "" for a value that is not defined.
func (n enumNames[T]) name(v T) string {
	if int(v) < len(n) {
		return n[v]
	}
	return ""
}

// String lists the names, for "want one of …".
func (n enumNames[T]) String() string {
	var names []string
	for _, name := range n {
		if name != "" {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

// parse returns the value named s.
func (n enumNames[T]) parse(s string) (T, bool) {
	for v, name := range n {
		if name != "" && name == s {
			return T(v), true
		}
	}
	return 0, false
}

func (k Kind) String() string {
	if s := kindNames.name(k); s != "" {
		return s
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// MarshalText implements encoding.TextMarshaler.
func (k Kind) MarshalText() ([]byte, error) {
	if !k.Valid() {
		return nil, fmt.Errorf("format: unknown event kind %d", uint8(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *Kind) UnmarshalText(b []byte) error {
	v, ok := kindNames.parse(string(b))
	if !ok {
		return fmt.Errorf("unknown event kind %q (want one of %s)", b, kindNames)
	}
	*k = v
	return nil
}

// Valid reports whether k is a defined kind.
func (k Kind) Valid() bool { return kindNames.name(k) != "" }

// Envelope is the part of an event that is hashed, chained and committed to
// by the epoch's Merkle tree. Field numbers are the CBOR map keys
// (docs/SPEC.md, "Record").
type Envelope struct {
	Version  uint8     `cbor:"0,keyasint" json:"version"`
	Recorder string    `cbor:"1,keyasint" json:"recorder"`                  // operator / recorder id
	Session  SessionID `cbor:"2,keyasint" json:"session"`                   // log identity
	Seq      uint64    `cbor:"3,keyasint" json:"seq"`                       // gapless, from 0
	Clock    uint64    `cbor:"4,keyasint" json:"clock"`                     // logical (Lamport) clock
	Group    string    `cbor:"5,keyasint,omitempty" json:"group,omitempty"` // concurrency group
	Time     int64     `cbor:"6,keyasint" json:"time"`                      // Unix nanoseconds
	Tool     string    `cbor:"7,keyasint" json:"tool"`
	Kind     Kind      `cbor:"8,keyasint" json:"kind"`
	Payload  Digest    `cbor:"9,keyasint" json:"payload"` // digest of the stored payload frame
	Prev     Digest    `cbor:"10,keyasint" json:"prev"`   // digest of the previous record
	// Format version 3: the caller's time of the event (Unix nanoseconds),
	// its run or session tag, and its caller-chosen id (docs/SPEC.md,
	// "Links by id").
	EventTime int64  `cbor:"11,keyasint,omitempty" json:"event_time,omitempty"`
	Run       string `cbor:"12,keyasint,omitempty" json:"run,omitempty"`
	ID        string `cbor:"13,keyasint,omitempty" json:"id,omitempty"`
}

// Payload holds the eight semantic fields of an event. It is stored apart
// from the chained envelope, encrypted when disclosure is enabled, and bound
// to the envelope by a key-committing commitment (docs/SPEC.md, "Payload").
// Every field is optional; unknown data goes in Ext, never dropped.
type Payload struct {
	Intent     *Intent               `cbor:"1,keyasint,omitempty" json:"intent,omitempty"`
	Policy     *PolicyEvaluation     `cbor:"2,keyasint,omitempty" json:"policy,omitempty"`
	Approval   *Approval             `cbor:"3,keyasint,omitempty" json:"approval,omitempty"`
	Execution  *Execution            `cbor:"4,keyasint,omitempty" json:"execution,omitempty"`
	Effects    []Effect              `cbor:"5,keyasint,omitempty" json:"effects,omitempty"`
	Context    *ContextProvenance    `cbor:"6,keyasint,omitempty" json:"context,omitempty"`
	Code       *CodeProvenance       `cbor:"7,keyasint,omitempty" json:"code,omitempty"`
	Delegation *DelegationProvenance `cbor:"8,keyasint,omitempty" json:"delegation,omitempty"`
	// Ext carries extension fields by name. Values are free-form
	// (docs/SPEC.md "Payload"): nil, booleans, integers, floats, text, byte
	// strings, lists and text-keyed maps of them; no tags or simple values.
	Ext map[string]any `cbor:"9,keyasint,omitempty" json:"ext,omitempty"`
	// Content is the text of a response, reasoning or observation event
	// (format version 3).
	Content *Text `cbor:"10,keyasint,omitempty" json:"content,omitempty"`
}

// MaxText is the longest text a Text keeps (bytes); a longer one is kept
// as its digest and size.
const MaxText = 64 << 10

// Text is a text kept whole up to MaxText bytes and as its SHA-256 digest
// above (docs/SPEC.md, "Payload": a text map). Exactly one of Text and
// Digest is set, except for the empty text; Size is the whole text's
// length in bytes.
type Text struct {
	Text   string `cbor:"1,keyasint,omitempty" json:"text,omitempty"`
	Digest Bytes  `cbor:"2,keyasint,omitempty" json:"digest,omitempty"`
	Size   uint64 `cbor:"3,keyasint" json:"size"`
}

// NewText returns b as a Text: kept when it is valid UTF-8 of at most
// MaxText bytes, else its SHA-256 digest and size.
func NewText(b []byte) *Text { return NewTextMax(b, MaxText) }

// NewTextMax is NewText keeping at most max bytes (and MaxText) of text.
func NewTextMax(b []byte, max int) *Text {
	if len(b) <= min(max, MaxText) && utf8.Valid(b) {
		return &Text{Text: string(b), Size: uint64(len(b))}
	}
	d := sha256.Sum256(b)
	return &Text{Digest: d[:], Size: uint64(len(b))}
}

// ExtGasUsed is the Ext key under which AFR records the gas an on-chain
// execution used (a uint64, from its receipt).
const ExtGasUsed = "chain.gas_used"

// Intent is the action the agent proposed: a tool and its arguments, never
// chain-of-thought.
type Intent struct {
	Tool string         `cbor:"1,keyasint" json:"tool"`
	Args map[string]any `cbor:"2,keyasint,omitempty" json:"args,omitempty"`
	// Chain fields, for on-chain intents (KindChainTx).
	ChainID uint64 `cbor:"3,keyasint,omitempty" json:"chain_id,omitempty"`
	Target  Bytes  `cbor:"4,keyasint,omitempty" json:"target,omitempty"` // 20-byte address
	Value   Bytes  `cbor:"5,keyasint,omitempty" json:"value,omitempty"`  // big-endian uint256, no leading zeros
	Data    Bytes  `cbor:"6,keyasint,omitempty" json:"data,omitempty"`   // calldata
}

// Decision is a policy or approval outcome.
type Decision uint8

// Decisions.
const (
	DecisionAllow Decision = 1
	DecisionDeny  Decision = 2
	DecisionAsk   Decision = 3 // allowed only with human approval
)

var decisionNames = enumNames[Decision]{DecisionAllow: "allow", DecisionDeny: "deny", DecisionAsk: "ask"}

func (d Decision) String() string {
	if s := decisionNames.name(d); s != "" {
		return s
	}
	return fmt.Sprintf("decision(%d)", uint8(d))
}

// MarshalText implements encoding.TextMarshaler.
func (d Decision) MarshalText() ([]byte, error) {
	if decisionNames.name(d) == "" {
		return nil, fmt.Errorf("format: unknown decision %d", uint8(d))
	}
	return []byte(d.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Decision) UnmarshalText(b []byte) error {
	v, ok := decisionNames.parse(string(b))
	if !ok {
		return fmt.Errorf("unknown decision %q (want one of %s)", b, decisionNames)
	}
	*d = v
	return nil
}

// PolicyEvaluation is the policy engine's verdict on the intent.
type PolicyEvaluation struct {
	PolicyID string   `cbor:"1,keyasint" json:"policy_id"`
	Decision Decision `cbor:"2,keyasint" json:"decision"`
	Rule     string   `cbor:"3,keyasint,omitempty" json:"rule,omitempty"`
	Reasons  []string `cbor:"4,keyasint,omitempty" json:"reasons,omitempty"`
	PDRHash  Bytes    `cbor:"5,keyasint,omitempty" json:"pdr_hash,omitempty"` // EIP-712 digest of the PDR
}

// Approval is a human approval, carried as a signature, not a string.
type Approval struct {
	Approver  string   `cbor:"1,keyasint" json:"approver"` // e.g. an address
	Decision  Decision `cbor:"2,keyasint" json:"decision"`
	Signature Bytes    `cbor:"3,keyasint,omitempty" json:"signature,omitempty"`
}

// Status is an execution outcome.
type Status uint8

// Execution statuses.
const (
	StatusOK       Status = 1
	StatusFailed   Status = 2
	StatusDenied   Status = 3 // not executed: denied by policy or approver
	StatusReverted Status = 4 // an on-chain call that reverted
)

var statusNames = enumNames[Status]{StatusOK: "ok", StatusFailed: "failed", StatusDenied: "denied", StatusReverted: "reverted"}

func (s Status) String() string {
	if n := statusNames.name(s); n != "" {
		return n
	}
	return fmt.Sprintf("status(%d)", uint8(s))
}

// MarshalText implements encoding.TextMarshaler.
func (s Status) MarshalText() ([]byte, error) {
	if statusNames.name(s) == "" {
		return nil, fmt.Errorf("format: unknown status %d", uint8(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Status) UnmarshalText(b []byte) error {
	v, ok := statusNames.parse(string(b))
	if !ok {
		return fmt.Errorf("unknown status %q (want one of %s)", b, statusNames)
	}
	*s = v
	return nil
}

// Execution is what happened when the action ran.
type Execution struct {
	Status       Status `cbor:"1,keyasint" json:"status"`
	Start        int64  `cbor:"2,keyasint,omitempty" json:"start,omitempty"` // Unix nanoseconds
	End          int64  `cbor:"3,keyasint,omitempty" json:"end,omitempty"`
	ExitCode     *int64 `cbor:"4,keyasint,omitempty" json:"exit_code,omitempty"`
	Error        string `cbor:"5,keyasint,omitempty" json:"error,omitempty"`
	OutputDigest Bytes  `cbor:"6,keyasint,omitempty" json:"output_digest,omitempty"`
	TxHash       Bytes  `cbor:"7,keyasint,omitempty" json:"tx_hash,omitempty"`
	Block        uint64 `cbor:"8,keyasint,omitempty" json:"block,omitempty"`
	Output       *Text  `cbor:"9,keyasint,omitempty" json:"output,omitempty"` // what the tool returned (format version 3)
}

// Effect is one side effect of an action. Exactly one field is set.
type Effect struct {
	FileWrite  *FileWrite  `cbor:"1,keyasint,omitempty" json:"file_write,omitempty"`
	APICall    *APICall    `cbor:"2,keyasint,omitempty" json:"api_call,omitempty"`
	DBChange   *DBChange   `cbor:"3,keyasint,omitempty" json:"db_change,omitempty"`
	ChainState *ChainState `cbor:"4,keyasint,omitempty" json:"chain_state,omitempty"`
	ChainLog   *ChainLog   `cbor:"5,keyasint,omitempty" json:"chain_log,omitempty"`
}

// FileWrite records a file's content digest before and after a write
// (empty Before for a created file, empty After for a deleted one).
type FileWrite struct {
	Path   string `cbor:"1,keyasint" json:"path"`
	Before Bytes  `cbor:"2,keyasint,omitempty" json:"before,omitempty"`
	After  Bytes  `cbor:"3,keyasint,omitempty" json:"after,omitempty"`
}

// APICall records an outbound API request.
type APICall struct {
	Method         string `cbor:"1,keyasint" json:"method"`
	URL            string `cbor:"2,keyasint" json:"url"`
	Status         int64  `cbor:"3,keyasint,omitempty" json:"status,omitempty"`
	RequestDigest  Bytes  `cbor:"4,keyasint,omitempty" json:"request_digest,omitempty"`
	ResponseDigest Bytes  `cbor:"5,keyasint,omitempty" json:"response_digest,omitempty"`
}

// DBChange records a database mutation.
type DBChange struct {
	Database  string `cbor:"1,keyasint" json:"database"`
	Table     string `cbor:"2,keyasint,omitempty" json:"table,omitempty"`
	Operation string `cbor:"3,keyasint" json:"operation"` // insert, update, delete, ddl …
	Rows      uint64 `cbor:"4,keyasint,omitempty" json:"rows,omitempty"`
	Digest    Bytes  `cbor:"5,keyasint,omitempty" json:"digest,omitempty"`
}

// ChainState records a storage slot or balance change of a contract.
type ChainState struct {
	ChainID uint64 `cbor:"1,keyasint" json:"chain_id"`
	Address Bytes  `cbor:"2,keyasint" json:"address"`
	Slot    Bytes  `cbor:"3,keyasint,omitempty" json:"slot,omitempty"` // empty: balance change
	Before  Bytes  `cbor:"4,keyasint,omitempty" json:"before,omitempty"`
	After   Bytes  `cbor:"5,keyasint,omitempty" json:"after,omitempty"`
}

// ChainLog records an emitted EVM log.
type ChainLog struct {
	ChainID uint64  `cbor:"1,keyasint" json:"chain_id"`
	Address Bytes   `cbor:"2,keyasint" json:"address"`
	Topics  []Bytes `cbor:"3,keyasint,omitempty" json:"topics,omitempty"`
	Data    Bytes   `cbor:"4,keyasint,omitempty" json:"data,omitempty"`
}

// ContextProvenance lists every input the action depended on.
type ContextProvenance struct {
	Inputs  []Input  `cbor:"1,keyasint,omitempty" json:"inputs,omitempty"`
	Parents []uint64 `cbor:"2,keyasint,omitempty" json:"parents,omitempty"` // sequence numbers of parent events
	// ParentIDs are the ids (Envelope.ID) of parent events of the same run
	// (format version 3; docs/SPEC.md, "Links by id").
	ParentIDs []string `cbor:"3,keyasint,omitempty" json:"parent_ids,omitempty"`
}

// Input is one input by content digest and source.
type Input struct {
	Source string `cbor:"1,keyasint" json:"source"` // e.g. "user", "file:/etc/hosts", "retrieval:kb", "agent:planner"
	Digest Bytes  `cbor:"2,keyasint" json:"digest"`
}

// CodeProvenance says which code produced the action.
type CodeProvenance struct {
	AgentVersion string `cbor:"1,keyasint,omitempty" json:"agent_version,omitempty"`
	ModelID      string `cbor:"2,keyasint,omitempty" json:"model_id,omitempty"`
	ToolVersion  string `cbor:"3,keyasint,omitempty" json:"tool_version,omitempty"`
	CodeHash     Bytes  `cbor:"4,keyasint,omitempty" json:"code_hash,omitempty"` // contract code hash for on-chain tools
}

// DelegationProvenance records authority passed from one principal to
// another, with the signed token that carries it.
type DelegationProvenance struct {
	Delegator string   `cbor:"1,keyasint" json:"delegator"`
	Delegate  string   `cbor:"2,keyasint" json:"delegate"`
	Scope     []string `cbor:"3,keyasint,omitempty" json:"scope,omitempty"`
	Token     Bytes    `cbor:"4,keyasint,omitempty" json:"token,omitempty"`  // signed delegation (e.g. EIP-712)
	Parent    *uint64  `cbor:"5,keyasint,omitempty" json:"parent,omitempty"` // event that delegated
}

// Event is what a caller records; the recorder fills in the envelope. Its
// JSON form is the event JSON of docs/SPEC.md (see ParseEventJSON).
type Event struct {
	Tool  string `json:"tool"`
	Kind  Kind   `json:"kind"`
	Group string `json:"group,omitempty"` // optional concurrency-group tag
	// After is the logical clock of a causally earlier event from another
	// recorder (e.g. the delegating agent's); the event's clock will exceed it.
	After uint64 `json:"after,omitempty"`
	// EventTime, Run and ID go to the record's fields of the same names
	// (format version 3).
	EventTime int64   `json:"event_time,omitempty"`
	Run       string  `json:"run,omitempty"`
	ID        string  `json:"id,omitempty"`
	Payload   Payload `json:"payload"`
}
