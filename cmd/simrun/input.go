package main

import (
	"errors"
	"fmt"
	"github.com/leasesim/leasesim/internal/strictjson"
	"io"
	"os"
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
// v strictly (simrun's own summaries and run files: a field v lacks, a
// duplicate or a wrong type is an error); errors name the file, the line
// and column, and the field.
func readJSONFile(path string, v any) error {
	data, err := readInput(path)
	if err != nil {
		return err
	}
	return locatedJSON(inputName(path), data, strictjson.UnmarshalNanos(data, v, strictjson.NullForOptional))
}

// locatedJSON is err, a strictjson error about data, prefixed with name
// and the line and column it is at; nil stays nil.
func locatedJSON(name string, data []byte, err error) error {
	if err == nil {
		return nil
	}
	var se *strictjson.Error
	if errors.As(err, &se) {
		line, col := strictjson.Locate(data, se.Offset)
		return fmt.Errorf("%s: line %d, column %d: %w", name, line, col, err)
	}
	return fmt.Errorf("%s: %w", name, err)
}
