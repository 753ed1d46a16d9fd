package format

import "encoding/binary"

// domainLogID separates log ids from every other SHA-256 in the formats.
const domainLogID = "AFR-v1-log-id\x00"

// LogID identifies one log among all the logs an operator anchors:
//
//	SHA-256("AFR-v1-log-id\x00" ‖ uint16be(len(recorder)) ‖ recorder ‖ session)
//
// Both inputs are in every record envelope and epoch header of the log, so
// anyone holding the log (or a disclosure bundle of it) computes its id
// without trusting the operator; the length prefix keeps (recorder,
// session) pairs from colliding by shifting bytes between them. The id is
// never zero (a zero id would need a SHA-256 preimage of zero), which
// leaves zero free to mean "no log". See docs/SPEC.md, "Log id".
func LogID(recorder string, session SessionID) Digest {
	b := make([]byte, 0, 2+len(recorder)+len(session))
	b = binary.BigEndian.AppendUint16(b, uint16(len(recorder)))
	b = append(b, recorder...)
	b = append(b, session[:]...)
	return hashWithDomain(domainLogID, b)
}
