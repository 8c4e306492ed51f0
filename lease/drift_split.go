package lease

// DriftSplit is how a grantor and its holders share the drift budget rho.
// Every clock runs at a rate within [1−rho, 1+rho], so between a holder's
// clock and the grantor's the budget is about 2×rho; either side may take
// it. Both splits are safe; they differ in who waits longer.
type DriftSplit uint8

// The splits.
const (
	// SplitGrantorHolds is leasesim's default: the grantor holds a lease for
	// TTL×(1+rho) on its clock, and the holder believes for TTL×(1−rho) −
	// Margin from when it sent the request.
	SplitGrantorHolds DriftSplit = iota
	// SplitHolderBudgets is the split of a store that expires a key at
	// exactly its TTL (Redis PX, for example): the grantor holds for exactly
	// TTL, and the holder believes for TTL×(1−2rho) − Margin.
	SplitHolderBudgets
)

var driftSplitNames = []string{"grantor-holds", "holder-budgets"}

// String returns the split's name.
func (s DriftSplit) String() string { return enumName(s, driftSplitNames, "DriftSplit") }

// holdPPB and believePPB are the drift terms of each side, in parts per
// billion of the TTL.
func (s DriftSplit) terms(rhoPPB int64) (holdPPB, believePPB int64) {
	if s == SplitHolderBudgets {
		return 0, 2 * rhoPPB
	}
	return rhoPPB, rhoPPB
}
