package lettershop

import "testing"

// Every read by id checks its id: a well-formed one costs no allocation,
// and only a malformed one is given a problem.
func TestIDCheckAllocatesOnlyForAProblem(t *testing.T) {
	const good = "ltr_01aaaaaaaaaaaaaaaaaaaaaaaa"
	if n := testing.AllocsPerRun(100, func() {
		if idErr("id", letterPrefix, good) != nil {
			t.Fatal("a well-formed id refused")
		}
	}); n != 0 {
		t.Errorf("checking a well-formed id: %v allocations, want 0", n)
	}
	if err := idErr("id", letterPrefix, "ltr_01-aaa"); err == nil {
		t.Error("a malformed id passed")
	}
}
