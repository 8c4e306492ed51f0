package nodelease

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestJudgeFollowsTryUpdateNodeHealth pins the model's lease logic on
// one node, pass by pass: the probe moves only when RenewTime moves
// forward, and the grace is timed from the probe on the controller's
// clock, whatever the RenewTime says.
func TestJudgeFollowsTryUpdateNodeHealth(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	renew := func(d time.Duration) *metav1.MicroTime { return &metav1.MicroTime{Time: t0.Add(d)} }
	type pass struct {
		at       time.Duration     // the controller's clock
		observed *metav1.MicroTime // the Lease's RenewTime read, nil: not read
		want     *Verdict          // the verdict change, nil: none
	}
	dead, alive := &Verdict{Node: "n", Dead: true}, &Verdict{Node: "n", Dead: false}
	tests := []struct {
		name    string
		m       Monitoring
		passes  []pass
		readyAt bool
	}{
		{"renewals keep it ready", DefaultMonitoring, []pass{
			{10 * time.Second, renew(9 * time.Second), nil}, {55 * time.Second, renew(50 * time.Second), nil},
			{100 * time.Second, renew(95 * time.Second), nil}}, true},
		{"unknown once the grace passed since the probe", DefaultMonitoring, []pass{
			{10 * time.Second, renew(9 * time.Second), nil}, {60 * time.Second, renew(9 * time.Second), nil},
			{61 * time.Second, renew(9 * time.Second), dead}}, false},
		{"a RenewTime that steps back is no renewal", DefaultMonitoring, []pass{
			{10 * time.Second, renew(9 * time.Second), nil}, {40 * time.Second, renew(-time.Hour), nil},
			{61 * time.Second, renew(-time.Hour + 20*time.Second), dead}}, false},
		{"a RenewTime far in the future is a renewal", DefaultMonitoring, []pass{
			{10 * time.Second, renew(24 * time.Hour), nil}, {55 * time.Second, renew(24*time.Hour + time.Second), nil},
			{100 * time.Second, renew(24*time.Hour + 2*time.Second), nil}}, true},
		{"a failed read leaves the lease unchanged", DefaultMonitoring, []pass{
			{10 * time.Second, renew(9 * time.Second), nil}, {61 * time.Second, nil, dead}}, false},
		{"alive again at the next renewal", DefaultMonitoring, []pass{
			{10 * time.Second, renew(9 * time.Second), nil}, {61 * time.Second, nil, dead},
			{66 * time.Second, renew(65 * time.Second), alive}}, true},
		{"without the grace check, never unknown", Monitoring{GracePeriod: 50 * time.Second, Period: 5 * time.Second,
			NoGraceCheck: true}, []pass{
			{10 * time.Second, renew(9 * time.Second), nil}, {600 * time.Second, nil, nil}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nh := nodeHealth{probe: t0, ready: true}
			for i, p := range tt.passes {
				v, changed := tt.m.judge(&nh, "n", p.observed, t0.Add(p.at))
				if p.want == nil {
					assert.False(t, changed, "pass %d: %+v", i, v)
					continue
				}
				assert.True(t, changed, "pass %d", i)
				assert.Equal(t, *p.want, v, "pass %d", i)
			}
			assert.Equal(t, tt.readyAt, nh.ready)
		})
	}
}

func TestDetectBound(t *testing.T) {
	assert.Equal(t, 62*time.Second, DefaultMonitoring.DetectBound())
}
