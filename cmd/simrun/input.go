package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// stdinName is the file name that means standard input, wherever simrun
// reads a file: check, merge, run --schedule, sweep --rerun-failures,
// tune --workload and workload from-events.
const stdinName = "-"

// inputName is how messages name the file at path: "standard input" for
// "-".
func inputName(path string) string {
	if path == stdinName {
		return "standard input"
	}
	return path
}

// openInput opens the file at path, or standard input for "-". The
// returned function closes what was opened.
func openInput(path string) (io.Reader, func(), error) {
	if path == stdinName {
		return os.Stdin, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err // names the path
	}
	return f, func() { f.Close() }, nil
}

// readInput reads the whole file at path, or standard input for "-".
func readInput(path string) ([]byte, error) {
	in, closeIn, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer closeIn()
	data, err := io.ReadAll(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inputName(path), err)
	}
	return data, nil
}

// readJSONFile decodes the JSON file at path ("-": standard input) into
// v; errors name the file and, for malformed JSON, the line and column.
// It reads simrun's own summaries and run.json files, of which a reader
// may take only the fields it needs.
func readJSONFile(path string, v any) error {
	data, err := readInput(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %s", inputName(path), describeJSONError(data, err))
	}
	return nil
}

// describeJSONError gives err with the line and column of its offset.
func describeJSONError(data []byte, err error) string {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
		if e.Field != "" {
			err = fmt.Errorf("%s: want %s, got %s", e.Field, e.Type, e.Value)
		}
	}
	if off < 0 || off > int64(len(data)) {
		return err.Error()
	}
	line := 1 + strings.Count(string(data[:off]), "\n")
	col := int(off) - strings.LastIndexByte(string(data[:off]), '\n')
	return fmt.Sprintf("line %d, column %d: %v", line, col, err)
}
