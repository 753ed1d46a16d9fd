package format

// appendPayload appends the canonical encoding of p to dst without
// reflection: byte for byte what the reflective encoder (encMode) writes for
// a Payload, for the recorder's hot path, where the reflective encoder cost
// more than all of an event's hashing. The typed fields are written here,
// free-form values (intent.args, ext) by free, which also checks them: p
// must have passed p.validate(false), and an error is a broken rule of a
// free-form value. FuzzPayloadEncoders checks it against the reflective
// encoder and Validate.
func appendPayload(dst []byte, p *Payload) ([]byte, error) {
	m := beginMap(&dst)
	var err error
	if in := p.Intent; in != nil {
		dst = m.key(dst, 1)
		if dst, err = appendIntent(dst, in); err != nil {
			return dst, err
		}
	}
	if pe := p.Policy; pe != nil {
		dst = m.key(dst, 2)
		pm := beginMap(&dst)
		dst = appendText(pm.key(dst, 1), pe.PolicyID)
		dst = appendHead(pm.key(dst, 2), 0, uint64(pe.Decision))
		if pe.Rule != "" {
			dst = appendText(pm.key(dst, 3), pe.Rule)
		}
		if len(pe.Reasons) > 0 {
			dst = appendTexts(pm.key(dst, 4), pe.Reasons)
		}
		dst = pm.optBytes(dst, 5, pe.PDRHash)
		pm.end(dst)
	}
	if a := p.Approval; a != nil {
		dst = m.key(dst, 3)
		am := beginMap(&dst)
		dst = appendText(am.key(dst, 1), a.Approver)
		dst = appendHead(am.key(dst, 2), 0, uint64(a.Decision))
		dst = am.optBytes(dst, 3, a.Signature)
		am.end(dst)
	}
	if x := p.Execution; x != nil {
		dst = appendExecution(m.key(dst, 4), x)
	}
	if len(p.Effects) > 0 {
		dst = appendHead(m.key(dst, 5), 4, uint64(len(p.Effects)))
		for i := range p.Effects {
			dst = appendEffect(dst, &p.Effects[i])
		}
	}
	if c := p.Context; c != nil {
		dst = m.key(dst, 6)
		cm := beginMap(&dst)
		if len(c.Inputs) > 0 {
			dst = appendHead(cm.key(dst, 1), 4, uint64(len(c.Inputs)))
			for _, in := range c.Inputs {
				im := beginMap(&dst)
				dst = appendText(im.key(dst, 1), in.Source)
				dst = appendReqBytes(im.key(dst, 2), in.Digest)
				im.end(dst)
			}
		}
		if len(c.Parents) > 0 {
			dst = appendHead(cm.key(dst, 2), 4, uint64(len(c.Parents)))
			for _, s := range c.Parents {
				dst = appendHead(dst, 0, s)
			}
		}
		if len(c.ParentIDs) > 0 {
			dst = appendTexts(cm.key(dst, 3), c.ParentIDs)
		}
		cm.end(dst)
	}
	if c := p.Code; c != nil {
		dst = m.key(dst, 7)
		cm := beginMap(&dst)
		dst = cm.optText(dst, 1, c.AgentVersion)
		dst = cm.optText(dst, 2, c.ModelID)
		dst = cm.optText(dst, 3, c.ToolVersion)
		dst = cm.optBytes(dst, 4, c.CodeHash)
		cm.end(dst)
	}
	if d := p.Delegation; d != nil {
		dst = m.key(dst, 8)
		dm := beginMap(&dst)
		dst = appendText(dm.key(dst, 1), d.Delegator)
		dst = appendText(dm.key(dst, 2), d.Delegate)
		if len(d.Scope) > 0 {
			dst = appendTexts(dm.key(dst, 3), d.Scope)
		}
		dst = dm.optBytes(dst, 4, d.Token)
		if d.Parent != nil {
			dst = appendHead(dm.key(dst, 5), 0, *d.Parent)
		}
		dm.end(dst)
	}
	if len(p.Ext) > 0 {
		if dst, err = freeExt(m.key(dst, 9), p.Ext, true); err != nil {
			return dst, err
		}
	}
	if p.Content != nil {
		dst = appendTextMap(m.key(dst, 10), p.Content)
	}
	m.end(dst)
	return dst, nil
}

func appendIntent(dst []byte, in *Intent) ([]byte, error) {
	m := beginMap(&dst)
	dst = appendText(m.key(dst, 1), in.Tool)
	if len(in.Args) > 0 {
		var err error
		if dst, err = freeArgs(m.key(dst, 2), in.Args, true); err != nil {
			return dst, err
		}
	}
	if in.ChainID != 0 {
		dst = appendHead(m.key(dst, 3), 0, in.ChainID)
	}
	dst = m.optBytes(dst, 4, in.Target)
	dst = m.optBytes(dst, 5, in.Value)
	dst = m.optBytes(dst, 6, in.Data)
	m.end(dst)
	return dst, nil
}

func appendExecution(dst []byte, x *Execution) []byte {
	m := beginMap(&dst)
	dst = appendHead(m.key(dst, 1), 0, uint64(x.Status))
	if x.Start != 0 {
		dst = appendInt(m.key(dst, 2), x.Start)
	}
	if x.End != 0 {
		dst = appendInt(m.key(dst, 3), x.End)
	}
	if x.ExitCode != nil {
		dst = appendInt(m.key(dst, 4), *x.ExitCode)
	}
	dst = m.optText(dst, 5, x.Error)
	dst = m.optBytes(dst, 6, x.OutputDigest)
	dst = m.optBytes(dst, 7, x.TxHash)
	if x.Block != 0 {
		dst = appendHead(m.key(dst, 8), 0, x.Block)
	}
	if x.Output != nil {
		dst = appendTextMap(m.key(dst, 9), x.Output)
	}
	m.end(dst)
	return dst
}

// appendTextMap appends a text map (Text).
func appendTextMap(dst []byte, t *Text) []byte {
	m := beginMap(&dst)
	dst = m.optText(dst, 1, t.Text)
	dst = m.optBytes(dst, 2, t.Digest)
	dst = appendHead(m.key(dst, 3), 0, t.Size)
	m.end(dst)
	return dst
}

func appendEffect(dst []byte, e *Effect) []byte {
	m := beginMap(&dst)
	if f := e.FileWrite; f != nil {
		dst = m.key(dst, 1)
		fm := beginMap(&dst)
		dst = appendText(fm.key(dst, 1), f.Path)
		dst = fm.optBytes(dst, 2, f.Before)
		dst = fm.optBytes(dst, 3, f.After)
		fm.end(dst)
	}
	if a := e.APICall; a != nil {
		dst = m.key(dst, 2)
		am := beginMap(&dst)
		dst = appendText(am.key(dst, 1), a.Method)
		dst = appendText(am.key(dst, 2), a.URL)
		if a.Status != 0 {
			dst = appendInt(am.key(dst, 3), int64(a.Status))
		}
		dst = am.optBytes(dst, 4, a.RequestDigest)
		dst = am.optBytes(dst, 5, a.ResponseDigest)
		am.end(dst)
	}
	if d := e.DBChange; d != nil {
		dst = m.key(dst, 3)
		dm := beginMap(&dst)
		dst = appendText(dm.key(dst, 1), d.Database)
		dst = dm.optText(dst, 2, d.Table)
		dst = appendText(dm.key(dst, 3), d.Operation)
		if d.Rows != 0 {
			dst = appendHead(dm.key(dst, 4), 0, d.Rows)
		}
		dst = dm.optBytes(dst, 5, d.Digest)
		dm.end(dst)
	}
	if s := e.ChainState; s != nil {
		dst = m.key(dst, 4)
		sm := beginMap(&dst)
		dst = appendHead(sm.key(dst, 1), 0, s.ChainID)
		dst = appendReqBytes(sm.key(dst, 2), s.Address)
		dst = sm.optBytes(dst, 3, s.Slot)
		dst = sm.optBytes(dst, 4, s.Before)
		dst = sm.optBytes(dst, 5, s.After)
		sm.end(dst)
	}
	if l := e.ChainLog; l != nil {
		dst = m.key(dst, 5)
		lm := beginMap(&dst)
		dst = appendHead(lm.key(dst, 1), 0, l.ChainID)
		dst = appendReqBytes(lm.key(dst, 2), l.Address)
		if len(l.Topics) > 0 {
			dst = appendHead(lm.key(dst, 3), 4, uint64(len(l.Topics)))
			for _, t := range l.Topics {
				dst = appendReqBytes(dst, t)
			}
		}
		dst = lm.optBytes(dst, 4, l.Data)
		lm.end(dst)
	}
	m.end(dst)
	return dst
}

// structMap writes one of the payload's typed maps: its head is a single
// byte (every typed map has fewer than 24 keys), reserved by beginMap and
// completed by end with the number of keys written.
type structMap struct {
	at int
	n  byte
}

func beginMap(dst *[]byte) structMap {
	*dst = append(*dst, 0xa0)
	return structMap{at: len(*dst) - 1}
}

func (m *structMap) key(dst []byte, k byte) []byte {
	m.n++
	return append(dst, k)
}

func (m *structMap) end(dst []byte) { dst[m.at] = 0xa0 | m.n }

// optText and optBytes write an optional field: omitted when empty.
func (m *structMap) optText(dst []byte, k byte, s string) []byte {
	if s == "" {
		return dst
	}
	return appendText(m.key(dst, k), s)
}

func (m *structMap) optBytes(dst []byte, k byte, b []byte) []byte {
	if len(b) == 0 {
		return dst
	}
	return appendByteString(m.key(dst, k), b)
}

func appendByteString(dst, b []byte) []byte {
	return append(appendHead(dst, 2, uint64(len(b))), b...)
}

// appendReqBytes writes a required byte string; a nil one is null, as the
// reflective encoder writes it (Validate rejects those the format forbids).
func appendReqBytes(dst, b []byte) []byte {
	if b == nil {
		return append(dst, 0xf6)
	}
	return appendByteString(dst, b)
}

func appendTexts(dst []byte, ss []string) []byte {
	dst = appendHead(dst, 4, uint64(len(ss)))
	for _, s := range ss {
		dst = appendText(dst, s)
	}
	return dst
}

func appendInt(dst []byte, v int64) []byte {
	if v >= 0 {
		return appendHead(dst, 0, uint64(v))
	}
	return appendHead(dst, 1, uint64(-1-v))
}
