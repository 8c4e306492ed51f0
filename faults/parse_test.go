package faults

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseAcceptsTheDocumentedForm(t *testing.T) {
	s, err := Parse(strings.NewReader(`{"version":1,"heal_at":"40s","events":[
	  {"at":"2s","kind":"partition","groups":[["n1"],["n2","n3"]]},
	  {"at":"5s","kind":"pause","node":"n2","duration":"1.5s"},
	  {"at":5000000000,"kind":"drift","node":"n1","drift":-0.001},
	  {"at":"9s","kind":"link","from":"*","to":"n2","link":{"latency":{"kind":"uniform","min":"1ms","max":"20ms"},"loss":0.1}},
	  {"at":"9s","kind":"heal"}]}`))
	require.NoError(t, err)
	require.NoError(t, s.Validate(testNodes))
	assert.Equal(t, 40*time.Second, s.HealAt)
	require.Len(t, s.Events, 5)
	assert.Equal(t, Event{At: 5 * time.Second, Kind: KindPause, Node: "n2", Duration: 1500 * time.Millisecond}, s.Events[1])
	assert.Equal(t, 5*time.Second, s.Events[2].At, "a bare number is nanoseconds")
	assert.Equal(t, 0.1, s.Events[3].Link.Loss)
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // the whole message
	}{
		{"empty input", ``, "faults: line 1, column 1: unexpected end of JSON input"},
		{"syntax error", "{\"version\": 1,\n \"heal_at\": tru}",
			"faults: line 2, column 16: heal_at: invalid character '}' in literal true (expecting 'e')"},
		{"trailing data", `{"version":1} {}`, "faults: line 1, column 15: invalid character '{' after top-level value"},
		{"not an object", `[1]`, "faults: line 1, column 1: want an object, got an array"},
		{"null schedule", `null`, "faults: line 1, column 1: want an object, got null"},
		{"unknown top-level field", "{\"version\":1,\n  \"heal\":\"1s\"}", "faults: line 2, column 3: heal: unknown field"},
		{"unknown event field", "{\"version\":1,\"events\":[\n{\"kind\":\"pause\",\n \"nodes\":[\"n1\"]}]}",
			"faults: line 3, column 2: events[0].nodes: unknown field"},
		{"unknown link field", `{"events":[{"link":{"los":0.1}}]}`, "faults: line 1, column 21: events[0].link.los: unknown field"},
		{"case-insensitive match refused", `{"Version":1}`, "faults: line 1, column 2: Version: unknown field"},
		{"duplicate field", `{"version":1,"version":1}`, "faults: line 1, column 14: version: duplicate field"},
		{"type error", "{\"version\":1,\"events\":[{},\n  {\"kind\":\"drift\",\"drift\":\"fast\"}]}",
			"faults: line 2, column 27: events[1].drift: want a number, got a string"},
		{"fractional version", `{"version":1.5}`, "faults: line 1, column 12: version: want an integer, got number 1.5"},
		{"bad duration", "{\"events\":[\n {\"kind\":\"pause\",\"duration\":\"5x\"}]}",
			`faults: line 2, column 29: events[0].duration: duration: time: unknown unit "x" in duration "5x"`},
		{"duration of the wrong type", `{"heal_at":true}`,
			`faults: line 1, column 12: heal_at: duration: want a string like "150ms" or integer nanoseconds, got true`},
		{"null event", `{"events":[null]}`, "faults: line 1, column 12: events[0]: want an object, got null"},
		{"null later in a list", `{"events":[{}, null]}`, "faults: line 1, column 16: events[1]: want an object, got null"},
		{"null duration", `{"heal_at":null}`, "faults: line 1, column 12: heal_at: want an integer, got null"},
		{"invalid UTF-8", "{\"events\":[{\"node\":\"\xff\"}]}", "faults: line 1, column 21: events[0].node: invalid UTF-8"},
		{"null string", `{"events":[{"node":null}]}`, "faults: line 1, column 20: events[0].node: want a string, got null"},
		{"group of the wrong type", `{"events":[{"groups":["n1"]}]}`,
			"faults: line 1, column 23: events[0].groups[0]: want an array, got a string"},
		{"bad latency", `{"events":[{"link":{"latency":{"kind":"gauss"}}}]}`,
			`faults: line 1, column 31: events[0].link.latency: kind: unknown distribution "gauss" (want fixed, uniform or pareto)`},
		{"column counts characters", "{\"events\":[{\"node\":\"ñ\", \"x\":1}]}", "faults: line 1, column 25: events[0].x: unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.in))
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.ErrorIs(t, err, ErrInvalid)
			var pe *ParseError
			assert.ErrorAs(t, err, &pe)
		})
	}
}

func TestParseNullsWhereAllowed(t *testing.T) {
	s, err := Parse(strings.NewReader(`{"version":1,"events":null}`))
	require.NoError(t, err)
	assert.Nil(t, s.Events)
	s, err = Parse(strings.NewReader(`{"version":1,"events":[{"kind":"heal","link":null,"groups":null}]}`))
	require.NoError(t, err)
	assert.Equal(t, []Event{{Kind: KindHeal}}, s.Events)
	s, err = Parse(strings.NewReader(`{"version":1,"events":[]}`))
	require.NoError(t, err)
	assert.Nil(t, s.Events, "an empty list and no list are one schedule")
}

func TestParseBoundsItsInput(t *testing.T) {
	big := io.MultiReader(strings.NewReader(`{"events":[`), strings.NewReader(strings.Repeat(" ", MaxInputBytes)))
	_, err := Parse(big)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than")
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestParseWrapsReadErrors(t *testing.T) {
	_, err := Parse(failingReader{})
	require.Error(t, err)
	assert.Equal(t, "faults: read schedule: disk on fire", err.Error())
	assert.NotErrorIs(t, err, ErrInvalid, "a read error is not bad input")
}
