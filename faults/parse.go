package faults

import (
	"errors"
	"fmt"
	"io"

	"github.com/leasesim/leasesim/internal/strictjson"
)

// MaxInputBytes bounds the size of a schedule Parse reads.
const MaxInputBytes = 16 << 20

// Parse reads a schedule from its JSON form. It is strict: unknown or
// duplicate fields, a null where a value is needed, trailing data and type
// mismatches are rejected with a *ParseError that gives the line, the column
// and the JSON path, for example
//
//	faults: line 7, column 19: events[1].duration: duration: time: unknown unit "x" in duration "5x"
//
// Parse does not validate the schedule against a set of nodes; call
// Validate (or Apply, which validates) for that.
func Parse(r io.Reader) (Schedule, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return Schedule{}, fmt.Errorf("faults: read schedule: %w", err)
	}
	if len(data) > MaxInputBytes {
		return Schedule{}, &ParseError{Line: 1, Column: 1,
			Err: fmt.Errorf("schedule is larger than %d bytes", MaxInputBytes)}
	}
	var j scheduleJSON
	if err := decodeStrict(data, &j); err != nil {
		return Schedule{}, err
	}
	return j.schedule(), nil
}

// decodeStrict decodes the JSON document data into v (a pointer to a wire
// struct) with the one strict decoder (internal/strictjson): null is
// accepted only for a list or an optional object such as "link", and
// every error is a *ParseError at the line and column of the offending
// value, with its JSON path. Leaves with their own UnmarshalJSON, such as
// sim.Duration and sim.Dist, keep their own messages.
func decodeStrict(data []byte, v any) error {
	err := strictjson.Unmarshal(data, v, strictjson.NullForOptional)
	if err == nil {
		return nil
	}
	var je *strictjson.Error
	if !errors.As(err, &je) {
		return &ParseError{Line: 1, Column: 1, Err: err}
	}
	line, col := strictjson.Locate(data, je.Offset)
	return &ParseError{Line: line, Column: col, Path: je.Path, Err: je.Err}
}
