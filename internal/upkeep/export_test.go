package upkeep

// Ticks is ticks, for the tests.
var Ticks = ticks
