package jepsen

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/model"
)

// logLine is a jepsen.util line: process, type, function and value.
var logLine = regexp.MustCompile(`^INFO\s+jepsen\.util\s+-\s+(\d+)\s+:(invoke|ok|fail|info)\s+:(read|write|cas)\s+(.*?)\s*$`)

// casValue is a cas's [from to].
var casValue = regexp.MustCompile(`^\[(-?\d+)\s+(-?\d+)\]$`)

// maxLine bounds a line, so that a file with no newline is refused, not
// held whole.
const maxLine = 64 << 10

// ReadLog reads a Jepsen text log of a compare-and-set register from r
// (named name in errors) as porcupine operations of model.CASRegister.
func ReadLog(r io.Reader, name string) ([]porcupine.Operation, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	var ops []porcupine.Operation
	open := make(map[int]int) // process -> index of its invoked operation; looked up, never iterated
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" {
			continue
		}
		m := logLine.FindStringSubmatch(text)
		if m == nil {
			return nil, fmt.Errorf("%s:%d: not a jepsen.util line of a register history: %.80q", name, line, text)
		}
		proc, err := strconv.Atoi(m[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: process %q: %w", name, line, m[1], err)
		}
		typ, f, value := m[2], model.CASOp(m[3]), m[4]
		if typ == "invoke" {
			if _, busy := open[proc]; busy {
				return nil, fmt.Errorf("%s:%d: process %d invokes %s while its previous operation is open", name, line, proc, f)
			}
			in, err := input(f, value)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			open[proc] = len(ops)
			ops = append(ops, porcupine.Operation{ClientId: proc, Input: in, Call: int64(line), Return: -1})
			continue
		}
		i, ok := open[proc]
		if !ok {
			return nil, fmt.Errorf("%s:%d: process %d completes %s with no open invocation", name, line, proc, f)
		}
		if in := ops[i].Input.(model.CASInput); in.Op != f {
			return nil, fmt.Errorf("%s:%d: process %d completes %s, but it invoked %s", name, line, proc, f, in.Op)
		}
		if typ == "info" {
			continue // indeterminate: it stays open, and returns after every line
		}
		out, err := output(typ, f, value)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		delete(open, proc)
		ops[i].Output, ops[i].Return = out, int64(line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	for i := range ops {
		if ops[i].Return < 0 {
			ops[i].Output, ops[i].Return = model.CASOutput{}, int64(line+1)
		}
	}
	return ops, nil
}

// input reads an invocation's value.
func input(f model.CASOp, value string) (model.CASInput, error) {
	switch f {
	case model.CASRead:
		if value != "nil" {
			return model.CASInput{}, fmt.Errorf("read invoked with %q, want nil", value)
		}
		return model.CASInput{Op: f}, nil
	case model.CASWrite:
		v, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return model.CASInput{}, fmt.Errorf("write of %q: %w", value, err)
		}
		return model.CASInput{Op: f, Value: v}, nil
	}
	from, to, err := casArgs(value)
	return model.CASInput{Op: f, From: from, To: to}, err
}

// output reads a completion (ok or fail) and its value.
func output(typ string, f model.CASOp, value string) (model.CASOutput, error) {
	switch {
	case f == model.CASRead && typ == "fail":
		if value != ":timed-out" {
			return model.CASOutput{}, fmt.Errorf("read failed with %q, want :timed-out", value)
		}
		return model.CASOutput{}, nil // a read has no effect: unknown is as good as absent
	case f == model.CASRead:
		if value == "nil" {
			return model.CASOutput{Known: true}, nil
		}
		v, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return model.CASOutput{}, fmt.Errorf("read returned %q: %w", value, err)
		}
		return model.CASOutput{Known: true, Exists: true, Value: v}, nil
	case f == model.CASWrite && typ == "ok":
		if _, err := strconv.ParseInt(value, 10, 64); err != nil {
			return model.CASOutput{}, fmt.Errorf("write of %q: %w", value, err)
		}
		return model.CASOutput{Known: true}, nil
	case f == model.CASSet:
		if _, _, err := casArgs(value); err != nil {
			return model.CASOutput{}, err
		}
		return model.CASOutput{Known: true, OK: typ == "ok"}, nil
	}
	return model.CASOutput{}, fmt.Errorf("a write cannot :%s (only :ok or :info)", typ)
}

// casArgs reads a cas's [from to].
func casArgs(value string) (from, to int64, err error) {
	m := casValue.FindStringSubmatch(value)
	if m == nil {
		return 0, 0, fmt.Errorf("cas of %q, want [from to]", value)
	}
	if from, err = strconv.ParseInt(m[1], 10, 64); err != nil {
		return 0, 0, fmt.Errorf("cas from %q: %w", m[1], err)
	}
	if to, err = strconv.ParseInt(m[2], 10, 64); err != nil {
		return 0, 0, fmt.Errorf("cas to %q: %w", m[2], err)
	}
	return from, to, nil
}
