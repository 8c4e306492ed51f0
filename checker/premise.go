package checker

import (
	"fmt"
	"strings"

	"github.com/leasesim/leasesim/history"
)

// PropertyPremise names the verdict on a run's premises.
const PropertyPremise = "premise"

// Premises reports whether what the scenario's story needed did happen. A
// premise that did not hold makes the run unknown, with the reason: the
// other verdicts of such a run are about a story that never took place. A
// run that declares no premise gets no premise verdict.
func Premises(h *history.History) (Result, bool) {
	if len(h.Premises) == 0 {
		return Result{}, false
	}
	var missed []string
	for _, p := range h.Premises {
		if !p.Held {
			missed = append(missed, fmt.Sprintf("%s: no (%s)", p.Name, p.Detail))
		}
	}
	r := Result{Property: PropertyPremise, Name: "story", Status: OK}
	if len(missed) > 0 {
		r.Status = Unknown
		r.Summary = "the story did not happen, so this run proves nothing: " + strings.Join(missed, "; ")
		return r, true
	}
	held := make([]string, 0, len(h.Premises))
	for _, p := range h.Premises {
		held = append(held, fmt.Sprintf("%s (%s)", p.Name, p.Detail))
	}
	r.Summary = strings.Join(held, "; ")
	return r, true
}
