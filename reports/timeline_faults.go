package reports

import (
	"fmt"
	"strings"
	"time"

	"github.com/leasesim/leasesim/history"
)

// bandHeight is the height of the thin bands (drift, link changes) drawn
// along the bottom of a lane, so they do not hide the shades above them.
const bandHeight = 4.0

// hasNetworkFaults reports whether any window acted on the network as a
// whole (a partition, split or bridge), which gets a lane of its own.
func hasNetworkFaults(windows []history.FaultWindow) bool {
	for _, w := range windows {
		if isNetworkFault(w.Kind) {
			return true
		}
	}
	return false
}

func isNetworkFault(kind string) bool {
	return kind == history.FaultPartition || kind == history.FaultSplit || kind == history.FaultBridge ||
		kind == history.FaultStallConns
}

// faultValues finds a fault window's value (a pause's length, a drift in
// parts per billion, a step) in the fault log, which windows do not carry.
type faultValues map[faultKey]int64

type faultKey struct {
	at   history.Time
	kind string
	node string
}

func newFaultValues(log []Fault) faultValues {
	v := faultValues{}
	for _, r := range log {
		v[faultKey{r.At, r.Kind, r.Node}] = r.Value
	}
	return v
}

func (v faultValues) of(w history.FaultWindow) int64 { return v[faultKey{w.Start, w.Kind, w.Node()}] }

// addFaultShades shades each fault window on the lanes it affected: pauses,
// crashes, isolation and one-way cuts on their nodes; partitions, splits
// and bridges on the network lane and on every node cut off from the
// grantor; drift and link changes as bands along the bottom of the node's
// lane; clock steps and failpoint hits as instants.
func addFaultShades(lanes []lane, index map[string]int, h *history.History, log []Fault, scale timeScale) {
	values := newFaultValues(log)
	rhoPPB := h.Lease.RhoPPB
	on := func(node string, w history.FaultWindow, class, title, label string) {
		if i, ok := index[node]; ok {
			lanes[i].Shades = append(lanes[i].Shades, newShade(lanes[i], w, scale, class, title, label))
		}
	}
	for _, w := range h.Faults {
		span := fmt.Sprintf("%s – %s", formatTime(w.Start), formatTime(w.End))
		switch w.Kind {
		case history.FaultPause:
			on(w.Node(), w, "f-pause", fmt.Sprintf("%s paused (frozen: no timers, no messages)\n%s (%s)", w.Node(), span, w.End.Sub(w.Start)), "pause "+roundDuration(w.End.Sub(w.Start)))
		case history.FaultCrash:
			on(w.Node(), w, "f-crash", fmt.Sprintf("%s crashed\n%s", w.Node(), span), "crash "+roundDuration(w.End.Sub(w.Start)))
		case history.FaultIsolate:
			on(w.Node(), w, "f-cut", fmt.Sprintf("%s isolated from every node\n%s", w.Node(), span), "isolated")
		case history.FaultPartitionOneWay:
			on(w.Node(), w, "f-cut", fmt.Sprintf("%s cannot send to %s\n%s", w.Node(), w.Peer(), span), "→"+w.Peer()+" cut")
			on(w.Peer(), w, "f-cut", fmt.Sprintf("%s cannot hear from %s\n%s", w.Peer(), w.Node(), span), w.Node()+"→ cut")
		case history.FaultPartition, history.FaultSplit, history.FaultBridge:
			title := fmt.Sprintf("%s %s\n%s", w.Kind, w.Detail, span)
			if w.Kind == history.FaultBridge {
				title = fmt.Sprintf("bridge %s, joined only through %s\n%s", w.Detail, w.Node(), span)
			}
			on(networkLane, w, "f-net", title, w.Kind+" "+w.Detail)
			for _, node := range cutFromGrantor(w, h.Grantor) {
				on(node, w, "f-cut", fmt.Sprintf("%s cut off from %s\n%s", node, h.Grantor, title), "cut off")
			}
		case history.FaultStallConns:
			on(networkLane, w, "f-net", fmt.Sprintf("connections open between %s stalled (no reset; new ones flow)\n%s", w.Detail, span),
				"stall-conns "+w.Detail)
		case history.FaultDrift:
			ppb := values.of(w)
			class, note := "f-drift", "within"
			if rhoPPB > 0 && (ppb > rhoPPB || ppb < -rhoPPB) {
				class, note = "f-drift-beyond", "BEYOND"
			}
			on(w.Node(), w, class, fmt.Sprintf("%s clock drift %+.0f ppm (%s rho = %.0f ppm)\n%s",
				w.Node(), float64(ppb)/1e3, note, float64(rhoPPB)/1e3, span), "")
		case history.FaultLink:
			on(w.Node(), w, "f-link", fmt.Sprintf("link %s → %s: %s\n%s", w.Node(), w.Peer(), w.Detail, span), "")
		case history.FaultStep:
			on(w.Node(), w, "i-step", fmt.Sprintf("%s wall clock stepped by %s at %s", w.Node(), time.Duration(values.of(w)), formatTime(w.Start)), "")
		case history.FaultFailpointHit:
			on(w.Node(), w, "i-failpoint", fmt.Sprintf("%s hit failpoint %s at %s", w.Node(), w.Detail, formatTime(w.Start)), "")
		default:
			on(w.Node(), w, "f-other", fmt.Sprintf("%s %s %s\n%s", w.Kind, w.Node(), w.Detail, span), "")
		}
	}
}

// newShade places a fault window on a lane: the whole lane height for a
// region, a band along the bottom for drift and links, a line for an
// instant.
func newShade(ln lane, w history.FaultWindow, scale timeScale, class, title, label string) shade {
	s := shade{X: scale.x(w.Start), Y: ln.Y, H: ln.H, Class: class, Title: title}
	switch {
	case strings.HasPrefix(class, "i-"):
		return s // an instant: W = 0
	case class == "f-drift" || class == "f-drift-beyond" || class == "f-link":
		s.Y, s.H = ln.Y+ln.H-bandHeight, bandHeight
	}
	s.W = max(scale.x(w.End)-s.X, 2*minBar)
	if label != "" && s.W >= float64(len([]rune(label)))*charWidth+6 {
		s.Label = label
	}
	return s
}

// cutFromGrantor returns the nodes of a partition, split or bridge that sit
// in a group without the grantor: the ones that could not reach the lease
// store. Groups come from the fault's detail, "[a b] | [c d]". When the
// grantor is in no group (it bridges, or a split left it out), no node is
// cut off from it.
func cutFromGrantor(w history.FaultWindow, grantor string) []string {
	groups := parseGroups(w.Detail)
	home := -1
	for i, g := range groups {
		for _, n := range g {
			if n == grantor {
				home = i
			}
		}
	}
	if home < 0 || w.Node() == grantor {
		return nil
	}
	var cut []string
	for i, g := range groups {
		if i != home {
			cut = append(cut, g...)
		}
	}
	return cut
}

// parseGroups reads the groups of a partition's detail, "[a b] | [c]".
func parseGroups(detail string) [][]string {
	var groups [][]string
	for part := range strings.SplitSeq(detail, "|") {
		part = strings.Trim(strings.TrimSpace(part), "[]")
		if names := strings.Fields(part); len(names) > 0 {
			groups = append(groups, names)
		}
	}
	return groups
}

// roundDuration shortens a duration for a label: "10s", "1.25s", "340ms".
func roundDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(time.Millisecond).String()
	}
	return d.String()
}
