package checker

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/model"
)

// A lost write: write 1, write 2 (both returned), then a read of 1. The
// longest prefix is the two writes; the read cannot follow, because the
// register holds 2.
func TestLongestPrefix(t *testing.T) {
	known := model.CASOutput{Known: true}
	ops := []porcupine.Operation{
		{ClientId: 0, Input: model.CASInput{Op: model.CASWrite, Value: 1}, Output: known, Call: 1, Return: 2},
		{ClientId: 1, Input: model.CASInput{Op: model.CASWrite, Value: 2}, Output: known, Call: 3, Return: 4},
		{ClientId: 2, Input: model.CASInput{Op: model.CASRead}, Output: model.CASOutput{Known: true, Exists: true, Value: 1}, Call: 5, Return: 6},
	}
	spec := model.CASRegisterSpec()
	res, info := porcupine.CheckOperationsVerbose(spec.Model, ops, 0)
	require.Equal(t, porcupine.Illegal, res)
	p, ok := LongestPrefix(spec, ops, info)
	require.True(t, ok)
	assert.Equal(t, []string{"write(1) -> ok", "write(2) -> ok"}, p.Ops)
	assert.Equal(t, []int{0, 1}, p.Index)
	assert.Equal(t, "2", p.State)
	assert.Equal(t, []string{"#2 read() -> 1: read returned 1, but the register holds 2"}, p.Blocked)
	assert.Contains(t, p.String(), "none of these can follow it:\n  #2 read() -> 1")

	ops[2].Output = model.CASOutput{Known: true, Exists: true, Value: 2}
	res, info = porcupine.CheckOperationsVerbose(spec.Model, ops, 0)
	require.Equal(t, porcupine.Ok, res)
	_, ok = LongestPrefix(spec, ops, info)
	assert.False(t, ok, "a linearizable history has no blocked prefix")
}
