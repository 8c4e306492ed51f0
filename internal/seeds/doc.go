// Package seeds is the one reader and writer of seed sets: "7", "1-500",
// "1-5,9". Every command and test that takes seeds reads them here, so they
// mean the same thing everywhere (simrun's --seeds, a Go test's
// -leasesim.seeds).
package seeds
