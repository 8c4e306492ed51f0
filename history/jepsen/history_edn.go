package jepsen

import (
	"errors"
	"fmt"
	"io"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/model"
)

// ReadEDN reads a Jepsen history.edn of a register, a compare-and-set
// register or a mutex from r (named name in errors): one operation map per
// form, or one vector of them. Each map has :type (:invoke, :ok, :fail or
// :info), :f (:read, :write, :cas, or :acquire, :release), :value and
// :process; operations of a process that is not a number (the nemesis)
// are not the system's and are skipped. It returns the operations (the
// form's position is its time) and the specification that judges them:
// model.CASRegisterSpec, or model.MutexSpec when :f names a mutex. As
// Jepsen's knossos reads a history, an operation that :fail-ed did not
// happen and is left out, and one that ended :info (or never completed)
// may have happened: its outcome is unknown and it returns after every
// form.
func ReadEDN(r io.Reader, name string) ([]porcupine.Operation, model.Spec, error) {
	e := newEDNReader(r)
	h := &ednHistory{name: name, open: make(map[int64]int)}
	for {
		v, err := e.value(0)
		if errors.Is(err, errEOF) {
			break
		}
		if err != nil {
			return nil, model.Spec{}, fmt.Errorf("%s:%d: %w", name, e.line, err)
		}
		ops := []any{v}
		if vec, ok := v.([]any); ok {
			ops = vec
		}
		for _, op := range ops {
			if err := h.add(op); err != nil {
				return nil, model.Spec{}, fmt.Errorf("%s:%d: %w", name, e.start, err)
			}
		}
	}
	return h.finish()
}

// ednHistory pairs invocations with completions.
type ednHistory struct {
	name   string
	ops    []porcupine.Operation
	failed []bool        // ops[i] failed: left out
	open   map[int64]int // process -> index of its open invocation; looked up, never iterated
	kind   string        // "register" or "mutex", from the first operation
	at     int64         // forms read: each operation's time
}

// add reads one operation map.
func (h *ednHistory) add(v any) error {
	m, ok := v.(Map)
	if !ok {
		return fmt.Errorf("an operation is a map, not %T", v)
	}
	h.at++
	typ, err := keyword(m, "type")
	if err != nil {
		return err
	}
	procV, _ := m.Get("process")
	proc, ok := procV.(int64)
	if !ok {
		if _, named := procV.(Keyword); named {
			return nil // the nemesis, or another actor that is not a client
		}
		return fmt.Errorf("field :process: %v is not a process number", procV)
	}
	f, err := keyword(m, "f")
	if err != nil {
		return err
	}
	kind := "register"
	if f == "acquire" || f == "release" {
		kind = "mutex"
	} else if f != "read" && f != "write" && f != "cas" {
		return fmt.Errorf("field :f: :%s is not a register or mutex operation (read, write, cas, acquire, release)", f)
	}
	if h.kind == "" {
		h.kind = kind
	} else if h.kind != kind {
		return fmt.Errorf("field :f: :%s in a %s history", f, h.kind)
	}
	value, _ := m.Get("value")
	switch typ {
	case "invoke":
		if _, busy := h.open[proc]; busy {
			return fmt.Errorf("process %d invokes :%s while its previous operation is open", proc, f)
		}
		in, err := ednInput(kind, f, value)
		if err != nil {
			return err
		}
		h.open[proc] = len(h.ops)
		h.ops = append(h.ops, porcupine.Operation{ClientId: int(proc), Input: in, Call: h.at, Return: -1})
		h.failed = append(h.failed, false)
		return nil
	case "ok", "fail", "info":
	default:
		return fmt.Errorf("field :type: :%s is not :invoke, :ok, :fail or :info", typ)
	}
	i, ok := h.open[proc]
	if !ok {
		return fmt.Errorf("process %d completes :%s with no open invocation", proc, f)
	}
	if op := opName(h.ops[i].Input); op != f {
		return fmt.Errorf("process %d completes :%s, but it invoked :%s", proc, f, op)
	}
	delete(h.open, proc)
	switch typ {
	case "info":
		return nil // unknown: returns after every form
	case "fail":
		h.failed[i], h.ops[i].Return = true, h.at
		return nil
	}
	out, err := ednOutput(kind, f, value)
	if err != nil {
		return err
	}
	h.ops[i].Output, h.ops[i].Return = out, h.at
	return nil
}

// finish leaves out failed operations, gives unknown ones their output,
// and names the specification.
func (h *ednHistory) finish() ([]porcupine.Operation, model.Spec, error) {
	var ops []porcupine.Operation
	for i, op := range h.ops {
		if h.failed[i] {
			continue
		}
		if op.Return < 0 {
			op.Return = h.at + 1
			if h.kind == "mutex" {
				op.Output = model.MutexOutput{}
			} else {
				op.Output = model.CASOutput{}
			}
		}
		ops = append(ops, op)
	}
	if h.kind == "mutex" {
		return ops, model.MutexSpec(), nil
	}
	return ops, model.CASRegisterSpec(), nil
}

func opName(in any) string {
	if m, ok := in.(model.MutexInput); ok {
		return string(m.Op)
	}
	return string(in.(model.CASInput).Op)
}

// keyword reads a map's keyword field.
func keyword(m Map, field Keyword) (string, error) {
	v, ok := m.Get(field)
	if !ok {
		return "", fmt.Errorf("no field :%s", field)
	}
	k, ok := v.(Keyword)
	if !ok {
		return "", fmt.Errorf("field :%s: %v is not a keyword", field, v)
	}
	return string(k), nil
}

// ednInput reads an invocation's value.
func ednInput(kind, f string, value any) (any, error) {
	if kind == "mutex" {
		return model.MutexInput{Op: model.MutexOp(f)}, nil
	}
	switch f {
	case "read":
		return model.CASInput{Op: model.CASRead}, nil
	case "write":
		v, ok := value.(int64)
		if !ok {
			return nil, fmt.Errorf("field :value: a write of %v, want an integer", value)
		}
		return model.CASInput{Op: model.CASWrite, Value: v}, nil
	}
	from, to, err := ednPair(value)
	return model.CASInput{Op: model.CASSet, From: from, To: to}, err
}

// ednOutput reads an :ok completion's value.
func ednOutput(kind, f string, value any) (any, error) {
	if kind == "mutex" {
		return model.MutexOutput{Known: true}, nil
	}
	switch f {
	case "read":
		if value == nil {
			return model.CASOutput{Known: true}, nil
		}
		v, ok := value.(int64)
		if !ok {
			return nil, fmt.Errorf("field :value: a read of %v, want an integer or nil", value)
		}
		return model.CASOutput{Known: true, Exists: true, Value: v}, nil
	case "cas":
		if _, _, err := ednPair(value); err != nil {
			return nil, err
		}
		return model.CASOutput{Known: true, OK: true}, nil
	}
	return model.CASOutput{Known: true}, nil
}

// ednPair reads a cas's [from to].
func ednPair(value any) (from, to int64, err error) {
	vec, ok := value.([]any)
	if ok && len(vec) == 2 {
		from, ok1 := vec[0].(int64)
		to, ok2 := vec[1].(int64)
		if ok1 && ok2 {
			return from, to, nil
		}
	}
	return 0, 0, fmt.Errorf("field :value: a cas of %v, want [from to]", value)
}
