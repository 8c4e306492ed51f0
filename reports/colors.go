package reports

import (
	"cmp"
	"slices"

	"github.com/leasesim/leasesim/history"
)

// grant names one lease grant: a token on a resource. Tokens are per
// resource, so a grant is the pair.
type grant struct {
	Resource string
	Token    uint64
}

// grantPalette is the colours of grants, in the order grants first appear.
// It has no red: red means fenced or violated, everywhere in a report.
var grantPalette = []string{
	"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
	"#edc948", "#9c755f", "#ff9da7", "#8cd17d", "#86bcb6",
	"#a0cbe8", "#d4a6c8",
}

// Colours a report uses for things other than grants.
const (
	colorFenced  = "#d62728"
	colorUnknown = "#bab0ac" // a token no belief was recorded for
)

// grantColors gives every grant of a history one colour, so the same token
// has the same colour in every lane and every mark. Grants are numbered in
// the order their beliefs start (then by resource and token), then any
// token seen only in an operation, in operation order.
type grantColors map[grant]string

func newGrantColors(h *history.History) grantColors {
	beliefs := slices.Clone(h.Beliefs)
	slices.SortStableFunc(beliefs, compareBeliefs)
	colors := grantColors{}
	add := func(g grant) {
		if _, ok := colors[g]; !ok && g.Token != 0 {
			colors[g] = grantPalette[len(colors)%len(grantPalette)]
		}
	}
	for _, b := range beliefs {
		add(grant{b.Resource, b.Token})
	}
	for _, o := range h.AllOps() {
		add(grant{o.Input.Resource, o.Input.Token})
	}
	return colors
}

// of returns the colour of grant g.
func (c grantColors) of(g grant) string {
	if color, ok := c[g]; ok {
		return color
	}
	return colorUnknown
}

// compareBeliefs orders beliefs by start, then resource, then token.
func compareBeliefs(a, b history.BeliefInterval) int {
	return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Resource, b.Resource),
		cmp.Compare(a.Token, b.Token), cmp.Compare(a.Holder, b.Holder))
}
