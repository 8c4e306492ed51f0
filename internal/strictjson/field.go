package strictjson

import "fmt"

// FieldError is a problem with one field of a record, found before the
// caller knows where the record stands: a reader attaches the file, the
// line or what the record is, in its own error type.
type FieldError struct {
	// Field is the JSON path of the field, such as "input.kind"; empty
	// for the whole record.
	Field string
	// Err says what is wrong.
	Err error
}

// Badf builds the error for one field.
func Badf(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// Under prefixes the field of err with parent ("input" + "kind" is
// "input.kind"); a nil err stays nil.
func Under(parent string, err *FieldError) *FieldError {
	if err == nil {
		return nil
	}
	if err.Field == "" {
		return &FieldError{Field: parent, Err: err.Err}
	}
	return &FieldError{Field: parent + "." + err.Field, Err: err.Err}
}

// Error formats the error as "field: what".
func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
