package fuzz

import "slices"

// breaks reports whether seq still breaks invariant inv, and the part of
// seq up to the call after which it broke.
func (r *runner) breaks(seq []draw, inv string) ([]draw, bool, error) {
	_, v, _, err := r.run(seq, false)
	if err != nil || v == nil || v.Invariant != inv {
		return nil, false, err
	}
	return seq[:len(v.Calls)], true, nil
}

// shrink makes seq, which breaks invariant inv, as short and its integers
// as small as it can while it still breaks inv: calls are removed in
// chunks, halving the chunk down to one call (delta debugging, Zeller's
// ddmin without its complements), then each integer argument is narrowed
// toward zero or its bound (Inputs.narrow), then calls are removed once
// more where narrowing made one unneeded.
func (r *runner) shrink(seq []draw, inv string) ([]draw, error) {
	seq, err := r.removeCalls(seq, inv)
	if err != nil {
		return nil, err
	}
	seq, moved, err := r.narrowCalls(seq, inv)
	if err != nil || !moved {
		return seq, err
	}
	return r.removeCalls(seq, inv)
}

// removeCalls removes chunks of calls from seq while it breaks inv.
func (r *runner) removeCalls(seq []draw, inv string) ([]draw, error) {
	for chunk := max(len(seq)/2, 1); ; chunk /= 2 {
		for at := 0; at < len(seq) && len(seq) > 1; {
			try := slices.Concat(seq[:at], seq[min(at+chunk, len(seq)):])
			if len(try) == 0 {
				break
			}
			shorter, ok, err := r.breaks(try, inv)
			if err != nil {
				return nil, err
			}
			if ok {
				seq = shorter // try the same place again
			} else {
				at += chunk
			}
		}
		if chunk == 1 {
			return seq, nil
		}
	}
}

// narrowCalls narrows the integer arguments of every call of seq while it
// breaks inv (Inputs.narrow), and reports whether any moved.
func (r *runner) narrowCalls(seq []draw, inv string) ([]draw, bool, error) {
	seq = slices.Clone(seq)
	moved := false
	var runErr error
	for i := range seq {
		fails := func(args []any) (bool, string) {
			try := slices.Clone(seq)
			try[i].args = args
			_, ok, err := r.breaks(try, inv)
			if err != nil && runErr == nil {
				runErr = err
			}
			return ok && err == nil, ""
		}
		if args := r.ms[seq[i].method].in.narrow(seq[i].args, fails); args != nil {
			seq[i].args, moved = args, true
		}
		if runErr != nil {
			return nil, false, runErr
		}
	}
	return seq, moved, nil
}
