//go:build race

package lettershop

// raceEnabled reports that the race detector is on: sync.Pool then drops
// what it is given at random, so counts of allocations through a pool do
// not hold.
const raceEnabled = true
