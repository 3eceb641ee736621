package idem

// ReleaseTries is releaseTries, for the tests.
const ReleaseTries = releaseTries
