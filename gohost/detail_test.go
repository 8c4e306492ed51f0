package gohost

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/history"
)

// The trace details the recorder builds without fmt read as fmt would
// have made them: the trace hash covers them, and the zoo's results cite
// hashes.
func TestDetailsReadAsFmtWould(t *testing.T) {
	for _, tc := range []struct {
		name string
		ref  OpRef
		in   history.Payload
		out  history.Payload
	}{
		{"empty", OpRef{}, history.Payload{}, history.Payload{}},
		{"lease", OpRef{Client: "c1", Incarnation: 2, ID: 17}, history.Payload{Kind: "update", Key: "kube-system/leasesim"},
			history.Payload{Kind: "update_reply", OK: true}},
		{"refused", OpRef{Client: "c2", Incarnation: math.MaxUint64, ID: math.MaxUint64}, history.Payload{Kind: "get", Key: "ns/x y"},
			history.Payload{Kind: "get_reply", Err: "not_found"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, fmt.Sprintf("%d %s %s", tc.ref.ID, tc.in.Kind, tc.in.Key), callDetail(tc.ref.ID, tc.in))
			assert.Equal(t, fmt.Sprintf("%d/%d %s ok=%v %s", tc.ref.Incarnation, tc.ref.ID, tc.out.Kind, tc.out.OK, tc.out.Err),
				processedDetail(tc.ref, tc.out))
			u := history.Time(tc.ref.ID % uint64(time.Hour))
			assert.Equal(t, fmt.Sprintf("%s token %d until %v", tc.in.Key, tc.ref.ID, u),
				tokenDetail(tc.in.Key, tc.ref.ID, " until "+u.String()))
			assert.Equal(t, fmt.Sprintf("%s token %d %s", tc.in.Key, tc.ref.Incarnation, history.EndFenced),
				tokenDetail(tc.in.Key, tc.ref.Incarnation, " "+string(history.EndFenced)))
			assert.Equal(t, fmt.Sprintf("%s token %d", tc.in.Key, tc.ref.ID), tokenDetail(tc.in.Key, tc.ref.ID, ""))
		})
	}
}
