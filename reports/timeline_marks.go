package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// addOpMarks marks the operations that tell a lease's story on the lanes:
// writes (accepted, or fenced in red) and checkpoints on the writer's lane,
// renewals as ticks on the holder's lane, and each grant on the grantor's
// lane in the grant's colour. A mark sits on the row of the belief it was
// made under, at the instant the server processed it.
func addOpMarks(lanes []lane, index map[string]int, h *history.History,
	beliefs map[string][]history.BeliefInterval, scale timeScale, colors grantColors) {
	rows := map[string][]int{}
	rowOf := func(holder string, g grant, t int64) int {
		bs := beliefs[holder]
		if _, ok := rows[holder]; !ok {
			rows[holder], _ = beliefRows(bs)
		}
		row := 0
		for i, b := range bs { // sorted by start: the last match wins
			if b.Resource == g.Resource && b.Token == g.Token && int64(b.Start) <= t {
				row = rows[holder][i]
			}
		}
		return row
	}
	kinds := markKinds(h)
	for j, o := range h.AllOps() {
		kind := kinds[j]
		if kind == "" {
			continue
		}
		node, g := o.Client, opGrant(o)
		if kind == "grant" {
			node = o.Server
		}
		i, ok := index[node]
		if !ok {
			continue
		}
		ln := &lanes[i]
		row := 0
		if node == o.Client {
			row = rowOf(node, g, int64(o.Processed))
		}
		y := rowY(ln.Y, row) + barHeight + stripH/2 // in the strip under the bar
		switch kind {
		case "grant", "fenced", "checkpoint-fenced", "stale-write":
			y = rowY(ln.Y, row) + barHeight/2 + 2 // on the bar: these are the story
		case "renew", "renew-refused", "reacquire":
			y = rowY(ln.Y, row) - 1 // a tick across the bar's top edge
		}
		ln.Marks = append(ln.Marks, mark{X: scale.x(o.Processed), Y: y, Kind: kind,
			Fill: colors.of(g), Title: opTitle(o, kind)})
	}
}

// markKinds says how each operation of a history is marked, by index: an
// acquire that returned a token already granted on the resource is a
// holder re-confirming its own grant ("reacquire", a tick like a
// renewal), not a new grant; a write the store accepted under a token
// lower than one it had accepted before is "stale-write", the mark of a
// fencing (P2) violation.
func markKinds(h *history.History) []string {
	kinds := make([]string, h.NumOps())
	granted := map[grant]bool{}
	for i, o := range h.AllOps() {
		kinds[i] = markKind(o)
		if kinds[i] == "grant" {
			g := grant{o.Output.Resource, o.Output.Token}
			if granted[g] {
				kinds[i] = "reacquire"
			}
			granted[g] = true
		}
	}
	for _, i := range staleWrites(h) {
		kinds[i] = "stale-write"
	}
	return kinds
}

// staleWrites returns the indexes of the writes the store accepted under a
// token lower than one it had already accepted on the resource, in the
// order the store processed them.
func staleWrites(h *history.History) []int {
	type write struct {
		i         int
		processed history.Time
		resource  string
		token     uint64
	}
	var accepted []write
	for i, o := range h.AllOps() {
		if o.Input.Kind == string(model.OpWrite) && o.Output.Err == "" {
			accepted = append(accepted, write{i, o.Processed, o.Input.Resource, o.Input.Token})
		}
	}
	slices.SortStableFunc(accepted, func(a, b write) int { return cmp.Compare(a.processed, b.processed) })
	highest := map[string]uint64{}
	var stale []int
	for _, w := range accepted {
		if w.token < highest[w.resource] {
			stale = append(stale, w.i)
		}
		highest[w.resource] = max(highest[w.resource], w.token)
	}
	return stale
}

// markKind says how an operation is marked, or "" if it is not.
func markKind(o history.Operation) string {
	ok, fenced := o.Output.Err == "", o.Output.Err == string(model.RegisterFenced)
	switch o.Input.Kind {
	case string(model.OpWrite):
		if fenced {
			return "fenced"
		}
		return "write"
	case string(model.OpCheckpoint):
		if fenced {
			return "checkpoint-fenced"
		}
		return "checkpoint"
	case string(model.OpRenew):
		if ok {
			return "renew"
		}
		return "renew-refused"
	case string(model.OpAcquire):
		if ok {
			return "grant"
		}
	}
	return ""
}

// opGrant is the grant an operation acted under: the request's token, or
// for an acquire the token it was granted.
func opGrant(o history.Operation) grant {
	if o.Input.Kind == string(model.OpAcquire) {
		return grant{o.Output.Resource, o.Output.Token}
	}
	return grant{o.Input.Resource, o.Input.Token}
}

// markVerb is what each mark says happened.
var markVerb = map[string]string{
	"write":             "write accepted",
	"fenced":            "write FENCED: a newer token was accepted first",
	"stale-write":       "STALE WRITE ACCEPTED: a newer token was accepted first (a fencing violation)",
	"checkpoint":        "checkpoint",
	"checkpoint-fenced": "checkpoint FENCED: a newer token was accepted first",
	"renew":             "renewed",
	"renew-refused":     "renewal refused",
	"grant":             "granted",
	"reacquire":         "re-acquired its own grant",
}

// opTitle is a mark's hover text: what happened, under which grant, and
// when the request was sent, processed and answered.
func opTitle(o history.Operation, kind string) string {
	var sb strings.Builder
	if kind == "grant" {
		fmt.Fprintf(&sb, "%s %s to %s (TTL %s)", o.Server, markVerb[kind],
			o.Client, o.Output.TTL)
		sb.WriteString("\n" + grantLabel(grant{o.Output.Resource, o.Output.Token}))
	} else {
		fmt.Fprintf(&sb, "%s %s %s → %s: %s", o.Client, o.Input.Kind, grantLabel(opGrant(o)),
			o.Server, markVerb[kind])
	}
	if o.Output.Err != "" && kind != "fenced" && kind != "checkpoint-fenced" {
		fmt.Fprintf(&sb, " (%s)", o.Output.Err)
	}
	if o.Input.Key != "" {
		fmt.Fprintf(&sb, "\nkey %s", o.Input.Key)
	}
	reply := "reply lost"
	if o.Returned() {
		reply = "reply " + formatTime(o.Return)
	}
	fmt.Fprintf(&sb, "\nsent %s · processed %s · %s", formatTime(o.Call), formatTime(o.Processed), reply)
	return sb.String()
}
