package faults

import (
	"bytes"
	"encoding/json"
	"testing"
)

// BenchmarkNemesisDraw measures one draw of a busy schedule (about 30
// faults a minute over a minute, every kind in the pool), validation of the
// result included.
func BenchmarkNemesisDraw(b *testing.B) {
	n := rich()
	r := seeded(1)
	events := 0
	for b.Loop() {
		events += len(n.Draw(r).Events)
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/draw")
}

// BenchmarkParse measures strict parsing of a drawn schedule.
func BenchmarkParse(b *testing.B) {
	n := rich()
	n.FaultsPerMinute = 120
	data, err := json.Marshal(n.Draw(seeded(1)))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
