package dist

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/leasesim/leasesim/internal/strictjson"
)

// histogramJSON is a Histogram's JSON form: the exact figures, then only
// the non-empty buckets, each as [a value in it (ns), count], ascending.
type histogramJSON struct {
	Count   int64      `json:"count"`
	MinNS   int64      `json:"min_ns"`
	MaxNS   int64      `json:"max_ns"`
	SumNS   int64      `json:"sum_ns"`
	Buckets [][2]int64 `json:"buckets"`
}

// MarshalJSON writes h compactly: its size depends on how spread its
// values are (at most a few thousand buckets), never on how many there
// are.
func (h Histogram) MarshalJSON() ([]byte, error) {
	j := histogramJSON{Count: h.count, MinNS: int64(h.min), MaxNS: int64(h.max), SumNS: int64(h.sum),
		Buckets: [][2]int64{}}
	h.each(func(b Bucket, rep time.Duration) { j.Buckets = append(j.Buckets, [2]int64{int64(rep), b.Count}) })
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes, strictly: unknown fields,
// negative counts, and buckets that do not add up to count are errors.
func (h *Histogram) UnmarshalJSON(data []byte) error {
	var j histogramJSON
	if err := strictjson.Unmarshal(data, &j, strictjson.NoNulls); err != nil {
		return fmt.Errorf("histogram: %w", err)
	}
	var out Histogram
	var total int64
	for i, b := range j.Buckets {
		if b[1] <= 0 || b[1] > j.Count-total {
			return fmt.Errorf("histogram: bucket %d: count %d is not positive or exceeds the total %d", i, b[1], j.Count)
		}
		total += b[1]
		out.RecordN(time.Duration(b[0]), b[1])
	}
	switch {
	case total != j.Count:
		return fmt.Errorf("histogram: buckets hold %d values, count says %d", total, j.Count)
	case j.Count > 0 && j.MinNS > j.MaxNS:
		return errors.New("histogram: min_ns exceeds max_ns")
	}
	out.min, out.max, out.sum = time.Duration(j.MinNS), time.Duration(j.MaxNS), time.Duration(j.SumNS)
	if j.Count == 0 {
		out.min, out.max, out.sum = 0, 0, 0
	}
	*h = out
	return nil
}
