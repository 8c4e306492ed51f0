package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leasesim/leasesim/checker"
)

// metricRow is one metric as a report shows it: a display name without
// the unit suffix of its JSON name ("failover p99", not "failover_p99_ns")
// and a value formatted for people, in the unit the suffix named.
type metricRow struct {
	Name  string
	Value string
}

// metricRows flattens any metrics value (checker.Metrics for a run, or a
// sweep's aggregate) into rows sorted by name, through its JSON form: the
// JSON field names are the stable names of the contract, and the reports
// need not change when a metric is added. The JSON keeps its unit
// suffixes; the rows show them in the value instead (metricUnits).
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
	notApplicable(v)
	var rows []metricRow
	flattenMetric("", v, &rows)
	slices.SortFunc(rows, func(a, b metricRow) int { return strings.Compare(a.Name, b.Name) })
	return rows, nil
}

// notApplicableKey is the metrics' JSON key that names the metrics a run
// could not measure (checker.Metrics.NotApplicable).
const notApplicableKey = "not_applicable"

// notApplicable shows each metric the run could not measure as "n/a"
// with why, in place of its zero, and drops the list itself.
func notApplicable(v any) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	na, _ := obj[notApplicableKey].(map[string]any)
	delete(obj, notApplicableKey)
	for metric, why := range na { // into a map: order does not matter
		if _, ok := obj[metric]; ok {
			obj[metric] = fmt.Sprintf("n/a (%v)", why)
		}
	}
}

// flattenMetric appends the leaves of v under name. Objects nest with dots;
// arrays are shown whole, as compact JSON.
func flattenMetric(name string, v any, rows *[]metricRow) {
	obj, ok := v.(map[string]any)
	if !ok {
		if name != "" {
			display, value := formatMetric(name, v)
			*rows = append(*rows, metricRow{Name: display, Value: value})
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

// metricUnit is a unit suffix of a metric's JSON name and how a value in
// that unit is shown.
type metricUnit struct {
	suffix string
	rename string // what replaces the suffix in the display name
	format func(json.Number) (string, error)
}

// metricUnits are the unit suffixes the metrics' JSON names use.
var metricUnits = []metricUnit{
	{"_ns", "", func(v json.Number) (string, error) {
		n, err := v.Int64()
		return time.Duration(n).String(), err
	}},
	{"_seconds", "", func(v json.Number) (string, error) {
		f, err := v.Float64()
		return strconv.FormatFloat(f, 'f', 3, 64) + "s", err
	}},
	{"_per_s", " rate", func(v json.Number) (string, error) {
		f, err := v.Float64()
		return strconv.FormatFloat(f, 'g', 4, 64) + "/s", err
	}},
	{"_ppb", "", func(v json.Number) (string, error) {
		n, err := v.Int64()
		return checker.FormatDrift(n), err
	}},
}

// formatMetric returns a metric's display name and its value formatted for
// people, reading the unit from the JSON name's suffix and dropping the
// suffix from the name: "failover_p99_ns" 1500000000 is "failover p99"
// "1.5s", and "store_writes_per_s" 0.05 is "store writes rate" "0.05/s".
// Underscores become spaces.
func formatMetric(name string, v any) (string, string) {
	display := name
	value := ""
	for _, u := range metricUnits {
		if !strings.HasSuffix(name, u.suffix) {
			continue
		}
		display = strings.TrimSuffix(name, u.suffix) + u.rename
		if n, ok := v.(json.Number); ok {
			if s, err := u.format(n); err == nil {
				value = s
			}
		}
		break
	}
	display = strings.ReplaceAll(display, "_", " ")
	if value != "" {
		return display, value
	}
	return display, formatPlain(v)
}

// formatPlain formats a value without a unit.
func formatPlain(v any) string {
	switch v := v.(type) {
	case json.Number:
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
