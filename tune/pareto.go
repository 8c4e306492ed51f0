package tune

// The Pareto frontier over the costs a tuner trades against each other:
// how long a crashed holder's work waits (p99 failover), how much work is
// done twice (re-executed fraction), and the load on the lease store
// (store writes per second of workload); for a failure detector, how
// often it suspects a healthy member (false suspicions) against how long
// it takes to declare a stopped one dead (longest detection). All are
// minimised; a cost nobody measured is zero everywhere and decides
// nothing.

// costs returns the minimised costs of m.
func costs(m Metrics) [5]float64 {
	return [5]float64{float64(m.FailoverP99), m.ReexecutedFraction, m.StoreWritesPerWorkloadSecond,
		float64(m.FalseSuspicions), float64(m.DetectionMax)}
}

// dominates reports whether a is at least as good as b in every cost and
// better in one.
func dominates(a, b [5]float64) bool {
	better := false
	for i := range a {
		if a[i] > b[i] {
			return false
		}
		better = better || a[i] < b[i]
	}
	return better
}

// markPareto sets Pareto on every configuration that takes part (see
// participants) and that no other one dominates, and returns how many
// there are. Configurations equal in all three costs dominate neither:
// both are on the frontier.
func markPareto(configs []ConfigResult, seeds int) int {
	part := participants(configs, seeds)
	n := 0
	for i := range configs {
		configs[i].Pareto = false
		if !part[i] {
			continue
		}
		ci := costs(configs[i].Metrics)
		dominated := false
		for j := range configs {
			if j != i && part[j] && dominates(costs(configs[j].Metrics), ci) {
				dominated = true
				break
			}
		}
		if !dominated {
			configs[i].Pareto = true
			n++
		}
	}
	return n
}
