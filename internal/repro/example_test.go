package repro_test

import (
	"fmt"

	"github.com/leasesim/leasesim/internal/repro"
)

func ExampleSimrun() {
	fmt.Println(repro.Simrun("run", "--scenario", "kleppmann-gc-pause", "--seed", "3"))
	// Output: simrun run --scenario kleppmann-gc-pause --seed 3
}

func ExampleGoTest() {
	fmt.Println(repro.GoTest("TestMyLock/seed=17", "./mylock"))
	// Output: go test -run '^TestMyLock$/^seed=17$' ./mylock
}
