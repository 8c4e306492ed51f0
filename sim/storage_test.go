package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sim"
)

// TestStorageSurvivesOnlyWhatWasSynced runs scripts of storage operations,
// crashes and restarts on a node, and checks what each key reads afterwards.
// Script steps: "put k v", "del k", "sync", "crash" (crash and restart).
func TestStorageSurvivesOnlyWhatWasSynced(t *testing.T) {
	tests := []struct {
		name   string
		script []string
		want   map[string]string // key -> value; "" means absent
	}{
		{"unsynced put is lost", []string{"put a 1", "crash"}, map[string]string{"a": ""}},
		{"synced put survives", []string{"put a 1", "sync", "crash"}, map[string]string{"a": "1"}},
		{"later unsynced put is lost", []string{"put a 1", "sync", "put a 2", "crash"}, map[string]string{"a": "1"}},
		{"unsynced delete is lost", []string{"put a 1", "sync", "del a", "crash"}, map[string]string{"a": "1"}},
		{"synced delete survives", []string{"put a 1", "sync", "del a", "sync", "crash"}, map[string]string{"a": ""}},
		{"reads see unsynced writes", []string{"put a 1", "sync", "put a 2", "del b", "put c 3"},
			map[string]string{"a": "2", "b": "", "c": "3"}},
		{"last write wins", []string{"put a 1", "put a 2", "del a", "put a 3", "sync", "crash"}, map[string]string{"a": "3"}},
		{"survives two crashes", []string{"put a 1", "sync", "crash", "put b 2", "crash"}, map[string]string{"a": "1", "b": ""}},
		{"nothing written", []string{"crash"}, map[string]string{"a": ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := sim.New(sim.Config{})
			n := w.AddNode("disk", nil)
			st := n.Storage()
			for _, step := range tc.script {
				f := strings.Fields(step)
				switch f[0] {
				case "put":
					st.Put(f[1], []byte(f[2]))
				case "del":
					st.Delete(f[1])
				case "sync":
					require.NoError(t, st.Sync())
				case "crash":
					n.Crash()
					n.Restart()
				}
			}
			for k, want := range tc.want {
				v, ok := st.Get(k)
				assert.Equal(t, want != "", ok, "key %q present", k)
				assert.Equal(t, want, string(v), "key %q", k)
			}
		})
	}
}

// Values are not copied: Put keeps its slice and Get returns it, and a
// value Get returned stays unchanged when the key is written again.
func TestStorageKeepsValuesWithoutCopying(t *testing.T) {
	w := sim.New(sim.Config{})
	st := w.AddNode("disk", nil).Storage()
	v := []byte("abc")
	st.Put("k", v)
	got, _ := st.Get("k")
	assert.Same(t, &v[0], &got[0], "Get returns the slice Put kept")
	require.NoError(t, st.Sync())
	durable, _ := st.Get("k")
	assert.Same(t, &v[0], &durable[0], "and Sync makes that slice durable")
	st.Put("k", []byte("xyz"))
	require.NoError(t, st.Sync())
	again, _ := st.Get("k")
	assert.Equal(t, "xyz", string(again))
	assert.Equal(t, "abc", string(got), "a write replaces the value, never changes it in place")
	assert.Equal(t, uint64(2), st.Syncs())
}

func TestStorageKeysAreSortedAndCurrent(t *testing.T) {
	w := sim.New(sim.Config{})
	st := w.AddNode("disk", nil).Storage()
	for _, k := range []string{"lease/9", "lease/10", "other", "lease/1", "lease/5"} {
		st.Put(k, []byte{1})
	}
	require.NoError(t, st.Sync())
	st.Delete("lease/5")
	st.Put("lease/0", []byte{1})
	assert.Equal(t, []string{"lease/0", "lease/1", "lease/10", "lease/9"}, st.Keys("lease/"))
	assert.Equal(t, []string{"lease/0", "lease/1", "lease/10", "lease/9", "other"}, st.Keys(""))
	assert.Empty(t, st.Keys("none/"))
}

// TestStorageAcrossARealCrash crashes a node in the middle of a run: its
// boot after the restart sees the synced value only.
func TestStorageAcrossARealCrash(t *testing.T) {
	w := sim.New(sim.Config{})
	var boots []string
	n := w.AddNode("disk", func(n *sim.Node) {
		v, _ := n.Storage().Get("k")
		boots = append(boots, string(v))
		n.Storage().Put("k", []byte("synced"))
		require.NoError(t, n.Storage().Sync())
		n.Storage().Put("k", []byte("unsynced"))
	})
	w.At(sim.Time(time.Second), n.Crash)
	w.At(sim.Time(2*time.Second), n.Restart)
	require.NoError(t, w.RunFor(3*time.Second).Err)
	assert.Equal(t, []string{"", "synced"}, boots)
	assert.Equal(t, uint64(1), n.Incarnation())
}
