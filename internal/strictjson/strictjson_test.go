package strictjson

import (
	"errors"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type inner struct {
	N int `json:"n"`
}

type doc struct {
	S    string         `json:"s"`
	I    int64          `json:"i"`
	U    uint32         `json:"u"`
	F    float64        `json:"f"`
	B    bool           `json:"b"`
	P    *inner         `json:"p"`
	In   inner          `json:"in"`
	L    []string       `json:"l"`
	LL   [][]int        `json:"ll"`
	Objs []inner        `json:"objs"`
	M    map[string]int `json:"m"`
}

func TestUnmarshalRejects(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		nulls Nulls
		want  string // path: what
		off   int64
	}{
		{"unknown field", `{"x":1}`, NoNulls, "x: unknown field", 1},
		{"case matters", `{"S":"a"}`, NoNulls, "S: unknown field", 1},
		{"duplicate field", `{"s":"a","s":"b"}`, NoNulls, "s: duplicate field", 9},
		{"nested unknown", `{"objs":[{"n":1},{"m":2}]}`, NoNulls, "objs[1].m: unknown field", 18},
		{"wrong type", `{"i":"7"}`, NoNulls, "i: want an integer, got a string", 5},
		{"fraction", `{"i":1.5}`, NoNulls, "i: want an integer, got number 1.5", 5},
		{"negative unsigned", `{"u":-1}`, NoNulls, "u: want a non-negative integer, got number -1", 5},
		{"out of range", `{"u":4294967296}`, NoNulls, "u: 4294967296 is out of range for a non-negative integer", 5},
		{"null string", `{"s":null}`, NoNulls, "s: want a string, got null", 5},
		{"null string, optional nulls", `{"s":null}`, NullForOptional, "s: want a string, got null", 5},
		{"null pointer", `{"p":null}`, NoNulls, "p: want an object, got null", 5},
		{"null struct", `{"in":null}`, NullForOptional, "in: want an object, got null", 6},
		{"null first element", `{"l":[null]}`, NoNulls, "l[0]: want a string, got null", 6},
		{"null later element", `{"objs":[{}, {}, null]}`, NullForOptional, "objs[2]: want an object, got null", 17},
		{"null nested element", `{"ll":[[1],[2, null]]}`, NullForOptional, "ll[1][1]: want an integer, got null", 15},
		{"null document", `null`, NullForOptional, "want an object, got null", 0},
		{"not an object", `[]`, NoNulls, "want an object, got an array", 0},
		{"trailing comma", `{"l":["a",]}`, NoNulls, "l: a comma before the closing bracket or brace", 9},
		{"trailing data", `{} {}`, NoNulls, "invalid character '{' after top-level value", 3},
		{"cut short", `{"s":"a"`, NoNulls, "unexpected end of JSON input", 8},
		{"invalid UTF-8", "{\"s\":\"\xff\"}", NoNulls, "s: invalid UTF-8", 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d doc
			err := Unmarshal([]byte(tt.in), &d, tt.nulls)
			require.Error(t, err)
			var je *Error
			require.ErrorAs(t, err, &je)
			assert.Equal(t, tt.want, je.Error())
			assert.Equal(t, tt.off, je.Offset)
		})
	}
}

func TestUnmarshalAccepts(t *testing.T) {
	var d doc
	require.NoError(t, Unmarshal([]byte(`{"s":"a","p":null,"l":null,"objs":[{"n":2}],"m":null}`), &d, NullForOptional))
	assert.Equal(t, doc{S: "a", Objs: []inner{{N: 2}}}, d)
	require.Error(t, Unmarshal([]byte(`{"l":null}`), &d, NoNulls), "NoNulls means no nulls at all")
}

func TestHasNull(t *testing.T) {
	for in, want := range map[string]bool{
		`{"s":"null"}`: false, `{"s":"a\"n\\","i":1}`: false, `{"b":true,"f":1e5}`: false,
		`{"s":"\\",  "p":null}`: true, `[null]`: true, `{"s":"\"","l":[nul`: true,
	} {
		assert.Equal(t, want, hasNull([]byte(in)), "%s", in)
	}
	var d doc
	require.NoError(t, Unmarshal([]byte(`{"s":"no null \"here\" n\n"}`), &d, NoNulls))
	assert.Equal(t, "no null \"here\" n\n", d.S)
}

func TestExplainLeavesOtherErrorsAlone(t *testing.T) {
	err := errors.New("disk on fire")
	assert.Same(t, err, Explain(nil, err))
}

func TestLocate(t *testing.T) {
	data := []byte("{\n  \"ñ\": x}")
	for _, tt := range []struct {
		off       int64
		line, col int
	}{{0, 1, 1}, {1, 1, 2}, {2, 2, 1}, {8, 2, 6}, {-1, 2, 10}, {99, 2, 10}} {
		line, col := Locate(data, tt.off)
		assert.Equal(t, [2]int{tt.line, tt.col}, [2]int{line, col}, "offset %d", tt.off)
	}
}

func TestPath(t *testing.T) {
	assert.Equal(t, "", Path(""))
	assert.Equal(t, "events[1].link.latency", Path(jsontext.Pointer("/events/1/link/latency")))
	assert.Equal(t, "ll[1][0]", Path(jsontext.Pointer("/ll/1/0")))
	assert.Equal(t, "a~b/c", Path(jsontext.Pointer("/a~0b~1c")))
}
