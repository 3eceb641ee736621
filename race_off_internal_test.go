//go:build !race

package lettershop

// raceEnabled reports that the race detector is on (see race_on_internal_test.go).
const raceEnabled = false
