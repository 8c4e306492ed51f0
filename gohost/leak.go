package gohost

import (
	"bytes"
	"fmt"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

// Goroutines are told apart by node through a pprof label: a node's life
// starts its function in a goroutine labelled "gohost" = "run/node/life",
// and every goroutine started from it inherits the label. The goroutine
// profile lists goroutines with their labels, so the host can count what
// is left of a life once it ended and the bubble settled. Goroutines the
// runtime starts on the code's behalf (time.AfterFunc callbacks) carry no
// label and are not counted.

// stackGroup is one group of the goroutine profile: goroutines with the
// same stack and labels.
type stackGroup struct {
	count  int
	label  string
	frames []string // function names, innermost first
}

// goroutineGroups reads the goroutine profile and returns the groups whose
// label starts with prefix. It reads the profile's text in place, and
// names the frames of the groups it returns only: the host reads it at
// the end of every run, when its lives have usually left nothing.
func goroutineGroups(prefix string) []stackGroup {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		return nil
	}
	var out []stackGroup
	var cur *stackGroup
	keep := false // cur's label starts with prefix
	for line := range bytes.Lines(buf.Bytes()) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		switch {
		case len(line) == 0:
			if cur != nil && keep {
				out = append(out, *cur)
			}
			cur, keep = nil, false
		case cur == nil && bytes.Contains(line, []byte(" @ ")):
			n, _ := strconv.Atoi(string(bytes.TrimSpace(line[:bytes.Index(line, []byte(" @ "))])))
			cur = &stackGroup{count: n}
		case cur != nil && bytes.HasPrefix(line, []byte("# labels: ")):
			const key = `"` + labelKey + `":"`
			if i := bytes.Index(line, []byte(key)); i >= 0 {
				rest := line[i+len(key):]
				if j := bytes.IndexByte(rest, '"'); j >= 0 && bytes.HasPrefix(rest[:j], []byte(prefix)) {
					cur.label, keep = string(rest[:j]), true
				}
			}
		case keep && bytes.HasPrefix(line, []byte("#\t")):
			if f := strings.Fields(string(line[2:])); len(f) >= 2 {
				fn := f[1]
				if k := strings.LastIndex(fn, "+0x"); k >= 0 {
					fn = fn[:k]
				}
				loc := ""
				if len(f) >= 3 {
					loc = f[2]
				}
				cur.frames = append(cur.frames, fn+" "+loc)
			}
		}
	}
	if cur != nil && keep {
		out = append(out, *cur)
	}
	return out
}

// calls reports whether a frame of the stack is in a function whose name
// starts with one of prefixes.
func (g stackGroup) calls(prefixes ...string) bool {
	for _, f := range g.frames {
		for _, p := range prefixes {
			if strings.HasPrefix(f, p) {
				return true
			}
		}
	}
	return false
}

// where names a stack by its innermost frames outside the runtime.
func (g stackGroup) where() string {
	var keep []string
	for _, f := range g.frames {
		if strings.HasPrefix(f, "runtime.") || strings.HasPrefix(f, "internal/") {
			continue
		}
		keep = append(keep, f)
		if len(keep) == 3 {
			break
		}
	}
	return strings.Join(keep, " < ")
}

// checkLeaks looks, once the bubble has settled, for goroutines of lives
// that have ended, and records them as leaks at at. It must not hold mu.
func (h *host) checkLeaks(lives []*Node, after string, at time.Duration) {
	if len(lives) == 0 {
		return
	}
	groups := goroutineGroups(h.runID + "/")
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range lives {
		label := fmt.Sprintf("%s/%s/%d", h.runID, n.Name(), n.life)
		l := Leak{Node: n.Name(), Incarnation: n.life, After: after, At: at, life: n}
		for _, g := range groups {
			if g.label == label {
				l.Goroutines += g.count
				l.Where = append(l.Where, fmt.Sprintf("%d× %s", g.count, g.where()))
			}
		}
		if l.Goroutines > 0 {
			h.leaks = append(h.leaks, l)
			h.record(Event{Kind: "leak", At: at, Node: n.Name(), Detail: fmt.Sprintf("incarnation %d: %d goroutine(s) after its %s",
				n.life, l.Goroutines, after)})
		}
	}
}

// leaked returns the ended lives that leaked goroutines, in the order
// they were reported. Callers hold mu.
func (h *host) leaked() []*Node {
	var out []*Node
	for _, l := range h.leaks {
		out = append(out, l.life)
	}
	return out
}
