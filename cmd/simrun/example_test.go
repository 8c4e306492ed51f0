package main

import (
	"fmt"
	"io"
	"os"
)

// Bad input exits 2 with one line naming the flag and what is wrong, and a
// hint, not cobra's whole usage block.
func Example() {
	code := run([]string{"sweep", "--seeds", "5-2"}, os.Stdout, os.Stdout)
	fmt.Println("exit", code)
	// Output:
	// simrun: --seeds: seeds 5-2: the last seed is below the first (or random, random:N)
	// Run 'simrun sweep --help' for usage.
	// exit 2
}

// Replaying a scenario and seed runs it twice and compares the trace
// hashes; a difference would exit 1. (The line it prints carries the hash,
// which changes whenever the simulation does, so it is discarded here.)
func Example_replay() {
	code := run([]string{"replay", "--scenario", "kleppmann-gc-pause", "--seed", "1"}, io.Discard, os.Stdout)
	fmt.Println("exit", code)
	// Output:
	// exit 0
}
