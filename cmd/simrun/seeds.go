package main

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/sweep"
)

// randomSeeds is the seed value that draws seeds at random: "random" for
// one seed, "random:N" for N consecutive seeds.
const randomSeeds = "random"

// randomSeedBound bounds a drawn seed, so that it stays short to read and
// type, and a drawn range never wraps.
const randomSeedBound = 1 << 32

// seedSetHelp documents every flag that takes a set of seeds.
const seedSetHelp = "N, a range A-B, a list such as 1-5,9, or random / random:N (seeds drawn at random and printed first)"

// parseSeeds reads a flag that takes a set of seeds (sweep --seeds, tune
// --seeds): whatever sweep.ParseSeeds reads, or "random" / "random:N",
// which draws N consecutive seeds (1 for "random") from crypto/rand, once,
// here at the CLI boundary, and says on stderr which, with the flag that
// repeats them, before anything runs. Bad input is a usage error naming
// flag.
func (a *app) parseSeeds(cmd *cobra.Command, flag, value string) (sweep.Seeds, error) {
	v := strings.TrimSpace(value)
	if v != randomSeeds && !strings.HasPrefix(v, randomSeeds+":") {
		set, err := sweep.ParseSeeds(value)
		if err != nil {
			return set, usagef(cmd, "%s: %w (or %s, %s:N)", flag, err, randomSeeds, randomSeeds)
		}
		return set, nil
	}
	n := uint64(1)
	if rest, ok := strings.CutPrefix(v, randomSeeds+":"); ok {
		var err error
		if n, err = strconv.ParseUint(rest, 10, 64); err != nil || n < 1 || n > sweep.MaxRuns {
			return sweep.Seeds{}, usagef(cmd, "%s %q: want %s:N with 1 <= N <= %d", flag, value, randomSeeds, sweep.MaxRuns)
		}
	}
	first, err := a.drawSeed()
	if err != nil {
		return sweep.Seeds{}, internalErr(err)
	}
	set := sweep.Seeds{First: first, Last: first + n - 1}
	fmt.Fprintf(a.stderr, "%s %s: drew %s (repeat with %s %s)\n", flag, v, set, flag, set)
	return set, nil
}

// parseSeed reads a flag that takes one seed (run --seed): N, or "random",
// drawn and printed as parseSeeds does.
func (a *app) parseSeed(cmd *cobra.Command, flag, value string) (uint64, error) {
	if strings.TrimSpace(value) == randomSeeds {
		set, err := a.parseSeeds(cmd, flag, value)
		return set.First, err
	}
	seed, err := strconv.ParseUint(strings.TrimSpace(value), 10, 64)
	if err != nil {
		return 0, usagef(cmd, "%s %q: want one seed N (a non-negative integer) or %s; "+
			"for several seeds use simrun sweep --seeds", flag, value, randomSeeds)
	}
	return seed, nil
}

// drawSeed draws a seed below randomSeedBound.
func (a *app) drawSeed() (uint64, error) {
	src := a.random
	if src == nil {
		src = rand.Reader
	}
	var b [8]byte
	if _, err := io.ReadFull(src, b[:]); err != nil {
		return 0, fmt.Errorf("drawing a random seed: %w", err)
	}
	return binary.BigEndian.Uint64(b[:]) % randomSeedBound, nil
}
