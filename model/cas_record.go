package model

import (
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/history"
)

// RecordOp names an operation on a compare-and-swap record.
type RecordOp string

// The compare-and-swap record's operations, as a Kubernetes client calls
// them on a coordination.k8s.io/v1 Lease.
const (
	OpRecordGet    RecordOp = "get"
	OpRecordCreate RecordOp = "create"
	OpRecordUpdate RecordOp = "update"
)

// RecordErr is how a record operation failed; "" is success.
type RecordErr string

// The failures the record specification tells apart; any other fails it.
const (
	RecordOK RecordErr = ""
	// RecordNotFound: get or update of a record that does not exist.
	RecordNotFound RecordErr = "not_found"
	// RecordExists: create of a record that exists.
	RecordExists RecordErr = "already_exists"
	// RecordConflict: update whose version is not the record's.
	RecordConflict RecordErr = "conflict"
	// RecordBadRequest: refused without effect; always legal.
	RecordBadRequest RecordErr = "bad_request"
)

// LeaseRecord is the content of a Kubernetes Lease's spec. The server
// stores it and never reads it: its times are the writer's own clock
// readings, in nanoseconds.
type LeaseRecord struct {
	HolderIdentity string
	// HolderIncarnation is the holder's life, where the writer records it
	// (a restarted process is a new actor).
	HolderIncarnation uint64
	LeaseDuration     time.Duration // leaseDurationSeconds
	AcquireTime       int64         // the writer's reading when it acquired, ns
	RenewTime         int64         // the writer's reading when it last renewed, ns
	LeaseTransitions  int64
}

// RecordInput is a request on one record.
type RecordInput struct {
	Op     RecordOp
	Client string
	Name   string      // namespace/name
	Record LeaseRecord // create, update: the record to write
	// Version is, for update, the resourceVersion the writer read: the
	// update applies only if it is still the record's.
	Version string
}

// RecordOutput is the server's reply.
type RecordOutput struct {
	Err    RecordErr
	Record LeaseRecord // get: the record
	// Version is the record's resourceVersion: the one read by get, the new
	// one after create or update.
	Version string
}

// CASRecord returns the specification of a record under optimistic
// concurrency with no server-side expiry (a Kubernetes Lease) as a porcupine
// model, partitioned by name; inputs are RecordInput and outputs
// RecordOutput (or pointers to them), or the history's operations and
// replies (see historyRecord).
//   - create succeeds if and only if the record does not exist; it then
//     holds the record, at the version returned.
//   - update succeeds if and only if the record exists at the version given;
//     it then holds the new record at the version returned, which differs
//     from the old one. It fails with RecordConflict if the record exists at
//     another version, RecordNotFound if it does not exist.
//   - get returns the record and its version, or RecordNotFound.
//
// RecordBadRequest is legal for every operation. What it ignores: expiry,
// which is the clients' business (they judge it on their own clocks), what
// the record says (leaseTransitions is not checked to count changes of
// holder; P2 does that with the transitions as tokens), delete, other
// fields of the object, and that versions never come back (it checks only
// that an update changes the version).
func CASRecord() porcupine.Model {
	return partitionedBy(porcupine.Model{
		Init: func() any { return recordState{} },
		Step: func(state, input, output any) (bool, any) {
			next, why := recordStep(state.(recordState), recordInput(input), recordOutput(output))
			return why == "", next
		},
		Equal: func(a, b any) bool { return a.(recordState) == b.(recordState) },
		Hash: func(state any) uint64 {
			s := state.(recordState)
			return uint64(fnvOffset.u64(b2u(s.exists)).str(s.version).str(s.record.HolderIdentity).u64(uint64(s.record.RenewTime)))
		},
		DescribeOperation: func(input, output any) string {
			return describeRecordOp(recordInput(input), recordOutput(output))
		},
		DescribeState: func(state any) string { return state.(recordState).String() },
	}, recordName)
}

// recordName is CASRecord's partition key: a RecordInput's record name.
func recordName(input any) string { return recordInput(input).Name }

// CASRecordSpec is CASRecord with its name and Explain.
func CASRecordSpec() Spec {
	return Spec{Name: "cas-record", Model: CASRecord(), Explain: func(state, input, output any) string {
		_, why := recordStep(state.(recordState), recordInput(input), recordOutput(output))
		return why
	}, Key: recordName}
}

func recordInput(v any) RecordInput {
	switch x := v.(type) {
	case RecordInput:
		return x
	case *RecordInput:
		return *x
	case *history.Operation:
		return historyRecordInput(x)
	case history.Operation:
		return historyRecordInput(&x)
	}
	panic(fmt.Sprintf("model: record-input-type: input is %T, not RecordInput", v))
}

func recordOutput(v any) RecordOutput {
	switch x := v.(type) {
	case RecordOutput:
		return x
	case *RecordOutput:
		return *x
	case *history.Payload:
		return historyRecordOutput(x)
	case history.Payload:
		return historyRecordOutput(&x)
	}
	panic(fmt.Sprintf("model: record-output-type: output is %T, not RecordOutput", v))
}

// recordState is one record; the zero value is a record that does not
// exist.
type recordState struct {
	exists  bool
	record  LeaseRecord
	version string
}

// String describes the state, for example `v7: a renewed 12s (3 transitions)`.
func (s recordState) String() string {
	if !s.exists {
		return "absent"
	}
	return fmt.Sprintf("v%s: %s", s.version, describeRecord(s.record))
}

func describeRecord(r LeaseRecord) string {
	return fmt.Sprintf("%s renewed %v for %v (%d transitions)", quote(r.HolderIdentity), time.Duration(r.RenewTime),
		r.LeaseDuration, r.LeaseTransitions)
}

// recordStep applies one operation to s: the next state, and "" if the
// operation is legal in s, or why not.
func recordStep(s recordState, in RecordInput, out RecordOutput) (recordState, string) {
	if out.Err == RecordBadRequest {
		return s, ""
	}
	var want RecordErr // the only legal outcome
	switch in.Op {
	case OpRecordCreate:
		if s.exists {
			want = RecordExists
		}
	case OpRecordGet, OpRecordUpdate:
		switch {
		case !s.exists:
			want = RecordNotFound
		case in.Op == OpRecordUpdate && in.Version != s.version:
			want = RecordConflict
		}
	default:
		return s, fmt.Sprintf("%v is not a record operation", in.Op)
	}
	if out.Err != want {
		return s, fmt.Sprintf("%v %s, but the record is %s", in.Op, outcome(string(out.Err)), s)
	}
	switch {
	case want != RecordOK:
		return s, ""
	case in.Op == OpRecordGet:
		if out.Record != s.record || out.Version != s.version {
			return s, fmt.Sprintf("get returned v%s: %s, but the record is %s", out.Version, describeRecord(out.Record), s)
		}
		return s, ""
	case out.Version == "" || out.Version == s.version:
		return s, fmt.Sprintf("%v returned version %q, but a write must change it from %q", in.Op, out.Version, s.version)
	}
	return recordState{exists: true, record: in.Record, version: out.Version}, ""
}

// outcome describes an error code, "succeeded" for none.
func outcome(err string) string {
	if err == "" {
		return "succeeded"
	}
	return "failed with " + err
}

// describeRecordOp describes an operation, for example
// `update(a, "kube-system/lock" at v6: "a" renewed 12s ...) -> v7`.
func describeRecordOp(in RecordInput, out RecordOutput) string {
	var call, result string
	switch in.Op {
	case OpRecordGet:
		call, result = quote(in.Name), fmt.Sprintf("v%s: %s", out.Version, describeRecord(out.Record))
	case OpRecordUpdate:
		call, result = fmt.Sprintf("%s at v%s: %s", quote(in.Name), in.Version, describeRecord(in.Record)), "v"+out.Version
	default:
		call, result = fmt.Sprintf("%s: %s", quote(in.Name), describeRecord(in.Record)), "v"+out.Version
	}
	if out.Err != RecordOK {
		result = string(out.Err)
	}
	return fmt.Sprintf("%v(%s, %s) -> %s", in.Op, in.Client, call, result)
}
