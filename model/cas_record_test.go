package model

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func rec(holder string, renew int64, transitions int64) LeaseRecord {
	return LeaseRecord{HolderIdentity: holder, LeaseDuration: 15 * time.Second, RenewTime: renew, LeaseTransitions: transitions}
}

func rop(op RecordOp, r LeaseRecord, version string, err RecordErr, outVersion string) pair {
	return pair{RecordInput{Op: op, Client: r.HolderIdentity, Name: "ns/lock", Record: r, Version: version},
		RecordOutput{Err: err, Version: outVersion}}
}

func rget(r LeaseRecord, version string, err RecordErr) pair {
	return pair{RecordInput{Op: OpRecordGet, Name: "ns/lock"}, RecordOutput{Err: err, Record: r, Version: version}}
}

func TestCASRecordRules(t *testing.T) {
	a, b := rec("a", 1, 0), rec("b", 2, 1)
	runCases(t, CASRecordSpec(), []specCase{
		{"create", []pair{rop(OpRecordCreate, a, "", RecordOK, "1"), rget(a, "1", RecordOK)}, ""},
		{"create twice", []pair{rop(OpRecordCreate, a, "", RecordOK, "1"), rop(OpRecordCreate, b, "", RecordOK, "2")}, "create succeeded"},
		{"create refused", []pair{rop(OpRecordCreate, a, "", RecordOK, "1"), rop(OpRecordCreate, b, "", RecordExists, "")}, ""},
		{"create refused when absent", []pair{rop(OpRecordCreate, b, "", RecordExists, "")}, "failed with already_exists"},
		{"get absent", []pair{rget(LeaseRecord{}, "", RecordNotFound)}, ""},
		{"update at the version", []pair{rop(OpRecordCreate, a, "", RecordOK, "1"), rop(OpRecordUpdate, b, "1", RecordOK, "2"), rget(b, "2", RecordOK)}, ""},
		{"update at a stale version", []pair{rop(OpRecordCreate, a, "", RecordOK, "1"), rop(OpRecordUpdate, b, "1", RecordOK, "2"),
			rop(OpRecordUpdate, a, "1", RecordOK, "3")}, "update succeeded, but the record is v2"},
		{"conflict at a stale version", []pair{rop(OpRecordCreate, a, "", RecordOK, "1"), rop(OpRecordUpdate, b, "1", RecordOK, "2"),
			rop(OpRecordUpdate, a, "1", RecordConflict, "")}, ""},
		{"conflict at the version", []pair{rop(OpRecordCreate, a, "", RecordOK, "1"), rop(OpRecordUpdate, b, "1", RecordConflict, "")}, "failed with conflict"},
		{"update without a version bump", []pair{rop(OpRecordCreate, a, "", RecordOK, "1"), rop(OpRecordUpdate, b, "1", RecordOK, "1")}, "must change it"},
		{"update of an absent record", []pair{rop(OpRecordUpdate, b, "1", RecordNotFound, "")}, ""},
		{"get a lost update", []pair{rop(OpRecordCreate, a, "", RecordOK, "1"), rop(OpRecordUpdate, b, "1", RecordOK, "2"), rget(a, "1", RecordOK)}, "get returned v1"},
		{"an unknown failure", []pair{rget(LeaseRecord{}, "", "timeout")}, "failed with timeout"},
	})
}

// recordGen draws operations on two records from two candidates; versions
// are small numbers, so that stale ones come up.
func recordGen() opGen {
	records := []LeaseRecord{rec("a", 1, 0), rec("b", 2, 1), rec("a", 3, 2)}
	return opGen{
		spec: CASRecordSpec(),
		key:  func(in any) string { return recordInput(in).Name },
		input: func(r *rand.Rand) any {
			return RecordInput{Op: pick(r, OpRecordGet, OpRecordCreate, OpRecordUpdate, OpRecordUpdate), Client: pick(r, "a", "b"),
				Name: pick(r, "ns/x", "ns/y"), Record: pick(r, records...), Version: strconv.Itoa(1 + r.IntN(3))}
		},
		output: func(r *rand.Rand, _ any, now int64, _ any) (any, int64) {
			return RecordOutput{Err: pick(r, RecordOK, RecordOK, RecordNotFound, RecordExists, RecordConflict, RecordBadRequest),
				Record: pick(r, records...), Version: strconv.Itoa(1 + r.IntN(3))}, now
		},
	}
}

func TestCASRecordDifferential(t *testing.T) {
	c := differential(t, recordGen(), 13, histories(), 8)
	t.Logf("%d linearizable, %d illegal", c.ok, c.illegal)
	assert.Greater(t, c.ok, minVerdicts())
	assert.Greater(t, c.illegal, minVerdicts())
}
