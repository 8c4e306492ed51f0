package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// metricRow is one metric as a report shows it: a dotted name and a value
// formatted for people.
type metricRow struct {
	Name  string
	Value string
}

// metricRows flattens any metrics value (checker.Metrics for a run, or a
// sweep's aggregate) into rows sorted by name, through its JSON form: the
// JSON field names are the stable names of the contract, and the reports
// need not change when a metric is added. Values whose name ends in "_ns"
// are shown as durations, "_seconds" as seconds.
func metricRows(metrics any) ([]metricRow, error) {
	raw, err := json.Marshal(metrics)
	if err != nil {
		return nil, fmt.Errorf("reports: metrics: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep integers exact
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("reports: metrics: %w", err)
	}
	var rows []metricRow
	flattenMetric("", v, &rows)
	slices.SortFunc(rows, func(a, b metricRow) int { return strings.Compare(a.Name, b.Name) })
	return rows, nil
}

// flattenMetric appends the leaves of v under name. Objects nest with dots;
// arrays are shown whole, as compact JSON.
func flattenMetric(name string, v any, rows *[]metricRow) {
	obj, ok := v.(map[string]any)
	if !ok {
		if name != "" {
			*rows = append(*rows, metricRow{Name: name, Value: formatMetric(name, v)})
		}
		return
	}
	for key, child := range obj { // order does not matter: the caller sorts
		if name != "" {
			key = name + "." + key
		}
		flattenMetric(key, child, rows)
	}
}

// formatMetric formats one metric value, reading the unit from the name.
func formatMetric(name string, v any) string {
	switch v := v.(type) {
	case json.Number:
		switch {
		case strings.HasSuffix(name, "_ns"):
			if n, err := v.Int64(); err == nil {
				return time.Duration(n).String()
			}
		case strings.HasSuffix(name, "_seconds"):
			if f, err := v.Float64(); err == nil {
				return strconv.FormatFloat(f, 'f', 3, 64) + "s"
			}
		}
		if f, err := v.Float64(); err == nil && strings.ContainsAny(v.String(), ".eE") {
			return strconv.FormatFloat(f, 'g', 4, 64) // a ratio or a rate: four digits say enough
		}
		return v.String()
	case string:
		return v
	case nil:
		return "-"
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Sprint(v)
		}
		return string(b)
	}
}
