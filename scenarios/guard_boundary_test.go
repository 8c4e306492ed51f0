package scenarios

import (
	"reflect"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

// caught runs f and returns what markPanic makes of its panic, recovered
// where a run would recover it.
func caught(f func()) (marked any) {
	defer func() { marked = markPanic(recover()) }()
	f()
	return nil
}

// The innermost boundary on the panicking stack decides whose panic it is,
// however deep the crossings nest; a panic under none is the harness's.
func TestInnermostBoundaryDecides(t *testing.T) {
	boom := func() { panic("boom") }
	tests := []struct {
		name string
		f    func()
		impl bool
	}{
		{"under no boundary", boom, false},
		{"in the implementation", func() { implCall(boom) }, true},
		{"in the harness", func() { harnessCall(boom) }, false},
		{"a harness callback inside the implementation", func() { implCall(func() { harnessCall(boom) }) }, false},
		{"the implementation inside a harness callback", func() { harnessCall(func() { implCall(boom) }) }, true},
		{"the implementation after a harness call returned", func() {
			implCall(func() {
				harnessCall(func() {})
				boom()
			})
		}, true},
		{"a guarded holder's method", func() { guardedHolder{&holderRef{nil}}.Release("r") }, true},
		{"the storage the harness gives the implementation", func() { implCall(func() { nodeStorage{nil}.Sync() }) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			marked := caught(tt.f)
			if tt.impl {
				assert.IsType(t, &implPanic{}, marked)
				return
			}
			assert.IsType(t, &HarnessPanic{}, marked)
		})
	}
}

// Every boundary is known by the name the runtime gives its frames.
func TestBoundariesAreNamed(t *testing.T) {
	assert.GreaterOrEqual(t, len(boundaries), 30, "every boundary function is marked")
	for name := range boundaries {
		assert.Contains(t, name, "github.com/leasesim/leasesim/scenarios.", "a function of this package")
		assert.NotContains(t, name, "-fm", "a method expression, not a bound method value")
	}
}

// Every method the implementation or the harness is given through a
// boundary type is a boundary, or hands over to one (delegates).
func TestEveryBoundaryMethodIsMarked(t *testing.T) {
	delegates := map[string]bool{"guardedHolder.Acquire": true, "guardedHolder.Write": true, "guardedHolder.Read": true,
		"guardedHolder.Checkpoint": true, "guardedGrantor.DeliverAny": true, "guardedResource.DeliverAny": true,
		"guardedHolder.DeliverAny": true}
	for _, v := range []any{guardedGrantor{}, guardedResource{}, guardedHolder{}, guardedObserver{}, guardedLeader{},
		nodeClock{}, &nodeTimer{}, nodeStorage{}, nodeTransport{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			name := runtime.FuncForPC(m.Func.Pointer()).Name()
			short := typ.Name() + "." + m.Name
			if typ.Kind() == reflect.Pointer {
				short = "(*" + typ.Elem().Name() + ")." + m.Name
			}
			if delegates[short] {
				continue
			}
			_, marked := boundaries[name]
			assert.True(t, marked, "%s is a boundary", short)
		}
	}
}
