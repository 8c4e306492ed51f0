package checker

import (
	"fmt"
	"slices"

	"github.com/leasesim/leasesim/history"
)

// reexecBoundText states P6's bound in words.
const reexecBoundText = "at every grant on a task, the units the new holder re-executes (units executed " +
	"before, by anyone) all lie at or above the latest accepted checkpoint's progress, so their count " +
	"never exceeds the work done since it: highest unit executed + 1 − accepted progress"

// AtLeastOnce checks P6, the at-least-once window, on the tasks' units and
// checkpoints (states read with history.DecodeProgress):
//
//   - (a) every unit 0..Units-1 of every completed task executed at least
//     once, no later than the completion;
//   - (b) completion is recorded exactly once: the accepted "done"
//     checkpoints of a task all come from one token;
//   - (c) at every grant on a task (a handoff, or a holder resuming after it
//     lost and regained belief), the units the holder re-executes (units
//     executed before, under any token) never exceed the work done since
//     the last accepted checkpoint: each lies at or above the latest
//     accepted progress p, so there are at most (highest executed + 1 − p).
//
// The summary reports the re-executed units per handoff and the duplicate
// unfenced side effects (h.Effects with the same resource and id more than
// once), which at-least-once execution allows but costs.
func AtLeastOnce(h *history.History) Result { return atLeastOnce(newAnalysis(h)) }

// atLeastOnce is AtLeastOnce on an analysis that other checkers may share.
func atLeastOnce(a *analysis) Result {
	h := a.h
	if len(h.Tasks) == 0 && len(h.Units) == 0 && len(h.Effects) == 0 {
		return notApplicable("P6", "at-least-once", "no task ran and no side effect happened")
	}
	v := newVerdict(h, "P6")
	rw := a.rework()
	completed := 0
	for _, tw := range rw.tasks {
		if checkCompletion(v, tw) {
			completed++
		}
		for i := range tw.runs {
			checkRun(v, tw, &tw.runs[i])
		}
	}
	summary := fmt.Sprintf("%d tasks completed once with every unit executed; %d handoffs re-executed %d units "+
		"(%s per handoff, max %d), all within the bound; %d duplicate side effects",
		completed, rw.handoffs, rw.reexec, perHandoff(rw), maxReexec(rw), a.duplicateEffects())
	r := v.result("at-least-once", summary)
	r.Bound = reexecBoundText
	return r
}

// checkCompletion checks (a) and (b) for one task and reports whether it
// completed.
func checkCompletion(v *verdict, tw *taskWork) bool {
	tokens := make([]uint64, 0, 2)
	var op history.Operation
	for _, i := range tw.done {
		if v.h.LoadOp(i, &op); slices.Contains(tokens, op.Input.Token) {
			continue
		}
		tokens = append(tokens, op.Input.Token)
		if len(tokens) > 1 {
			v.violate(op.Processed, fmt.Sprintf("completion of task %q recorded twice, under tokens %d and %d",
				tw.id, tokens[0], op.Input.Token), describeOpAt(v.h, tw.done[0]), describeOp(&op))
		}
	}
	t := tw.task
	if t == nil || t.Done == history.Never {
		return false
	}
	for i := range t.Units {
		if i < len(tw.first) && tw.first[i] <= t.Done {
			continue
		}
		detail := fmt.Sprintf("task %q completed at %v, but its unit %d never executed", t.ID, t.Done, i)
		if i < len(tw.first) && tw.first[i] != history.Never {
			detail = fmt.Sprintf("task %q completed at %v, but its unit %d executed only at %v", t.ID, t.Done, i, tw.first[i])
		}
		var evidence []string
		if len(tw.done) > 0 {
			evidence = append(evidence, "completion: "+describeOpAt(v.h, tw.done[0]))
		}
		v.violate(t.Done, detail, evidence...)
		return true // one missing unit says it; the rest would repeat it
	}
	return true
}

// checkRun checks (c) for one run.
func checkRun(v *verdict, tw *taskWork, r *run) {
	if r.reexec == 0 || (r.lowest >= r.accepted && r.reexec <= r.bound) {
		return
	}
	who := fmt.Sprintf("token %d", r.token)
	var evidence []string
	from := r.reexecAt
	if r.granted {
		grant := v.h.Op(r.grant)
		who = fmt.Sprintf("%s (token %d, handed progress %d)", grant.Client, r.token, r.handed)
		evidence = append(evidence, "grant: "+describeOp(&grant))
		from = grant.Processed
	}
	v.violateDuring(r.reexecAt, from, r.reexecAt,
		fmt.Sprintf("task %q: %s re-executed %d units from unit %d, beyond the work done since the last "+
			"accepted checkpoint (progress %d, bound %d units)", tw.id, who, r.reexec, r.lowest, r.accepted, r.bound),
		evidence...)
}

// perHandoff formats the mean re-executed units per handoff.
func perHandoff(rw *rework) string {
	if rw.handoffs == 0 {
		return "none"
	}
	return fmt.Sprintf("%.2f", float64(rw.reexec)/float64(rw.handoffs))
}

// maxReexec is the most units one run re-executed.
func maxReexec(rw *rework) int {
	most := 0
	for _, tw := range rw.tasks {
		for _, r := range tw.runs {
			most = max(most, r.reexec)
		}
	}
	return most
}
