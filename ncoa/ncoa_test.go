package ncoa_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/lettershop/lettershop/cass"
	"github.com/lettershop/lettershop/ncoa"
	"github.com/lettershop/lettershop/usps"
)

func addr(line1, last string) ncoa.Address { return ncoa.Address{Line1: line1, LastLine: last} }

func move(name, fromLine, fromLast, toLine, toLast string) ncoa.Move {
	return ncoa.Move{Name: name, From: addr(fromLine, fromLast), To: addr(toLine, toLast)}
}

func register(t testing.TB, p *ncoa.Processor, account string, m ncoa.Move) {
	t.Helper()
	if err := p.Register(account, m); err != nil {
		t.Fatalf("Register(%+v): %v", m, err)
	}
}

func TestRead(t *testing.T) {
	cases := []struct {
		name    string
		in      ncoa.Address
		want    usps.Address
		wantErr bool
	}{
		{"last line", ncoa.Address{Line1: "1 Main St", Line2: "Apt 2", LastLine: "Springfield, IL 62701-1234", Urbanization: "URB X"},
			usps.Address{Line1: "1 Main St", Line2: "Apt 2", City: "Springfield", State: "IL", ZIP: "62701", Plus4: "1234", Urbanization: "URB X"}, false},
		{"plus4 given apart", ncoa.Address{Line1: "1 Main St", LastLine: "Springfield IL 62701", Plus4: "9999"},
			usps.Address{Line1: "1 Main St", City: "Springfield", State: "IL", ZIP: "62701", Plus4: "9999"}, false},
		{"parts when the last line is unreadable", ncoa.Address{Line1: "1 Main St", LastLine: "nowhere", City: "Springfield", State: "IL", ZIP: "62701"},
			usps.Address{Line1: "1 Main St", City: "Springfield", State: "IL", ZIP: "62701"}, false},
		{"unreadable", ncoa.Address{Line1: "1 Main St", LastLine: "nowhere"}, usps.Address{Line1: "1 Main St"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ncoa.Read(c.in)
			if (err != nil) != c.wantErr {
				t.Errorf("err %v, want an error: %v", err, c.wantErr)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestForward(t *testing.T) {
	p := ncoa.New()
	register(t, p, "acct", move("", "123 Main Street", "Springfield, IL 62701", "77 Oak Ave", "Chicago, IL 60601"))
	register(t, p, "acct", move("Jane Doe", "9 Elm St", "Springfield, IL 62704", "1 Lake St", "Peoria, IL 61602"))
	register(t, p, "acct", move("Acme", "9 Elm St", "Springfield, IL 62704", "2 Lake St", "Peoria, IL 61602"))
	cases := []struct {
		name       string
		req        ncoa.Request
		want       ncoa.Address
		correction []ncoa.Correction
	}{
		{"moved, matched after standardization", ncoa.Request{Account: "acct", Forward: true, Address: addr("123 MAIN ST.", "springfield il 62701")},
			ncoa.Address{Line1: "77 Oak Ave", LastLine: "Chicago, IL 60601", City: "Chicago", State: "IL", ZIP: "60601"},
			[]ncoa.Correction{{"ncoa.addressLine1", "123 MAIN ST.", "77 Oak Ave"}, {"ncoa.lastLine", "springfield il 62701", "Chicago, IL 60601"}}},
		{"not asked", ncoa.Request{Account: "acct", Address: addr("123 Main St", "Springfield IL 62701")},
			ncoa.Address{Line1: "123 Main St", LastLine: "Springfield IL 62701", City: "Springfield", State: "IL", ZIP: "62701"}, nil},
		{"another account", ncoa.Request{Account: "other", Forward: true, Address: addr("123 Main St", "Springfield IL 62701")},
			ncoa.Address{Line1: "123 Main St", LastLine: "Springfield IL 62701", City: "Springfield", State: "IL", ZIP: "62701"}, nil},
		{"limited to a name, that name", ncoa.Request{Account: "acct", Forward: true, Individual: "jane  DOE", Address: addr("9 Elm St", "Springfield IL 62704")},
			ncoa.Address{Line1: "1 Lake St", LastLine: "Peoria, IL 61602", City: "Peoria", State: "IL", ZIP: "61602"},
			[]ncoa.Correction{{"ncoa.addressLine1", "9 Elm St", "1 Lake St"}, {"ncoa.lastLine", "Springfield IL 62704", "Peoria, IL 61602"}}},
		{"the organization's move first", ncoa.Request{Account: "acct", Forward: true, Individual: "Jane Doe", Organization: "ACME", Address: addr("9 Elm St", "Springfield IL 62704")},
			ncoa.Address{Line1: "2 Lake St", LastLine: "Peoria, IL 61602", City: "Peoria", State: "IL", ZIP: "61602"},
			[]ncoa.Correction{{"ncoa.addressLine1", "9 Elm St", "2 Lake St"}, {"ncoa.lastLine", "Springfield IL 62704", "Peoria, IL 61602"}}},
		{"limited to a name, another name", ncoa.Request{Account: "acct", Forward: true, Individual: "John Roe", Address: addr("9 Elm St", "Springfield IL 62704")},
			ncoa.Address{Line1: "9 Elm St", LastLine: "Springfield IL 62704", City: "Springfield", State: "IL", ZIP: "62704"}, nil},
		{"the NCOA test address", ncoa.Request{Forward: true, Address: addr("NCOA", "Anytown CA 90210")},
			ncoa.Address{Line1: cass.NCOATestForward[0], LastLine: cass.NCOATestForward[1], City: "Springfield", State: "IL", ZIP: "62701"},
			[]ncoa.Correction{{"ncoa.addressLine1", "NCOA", cass.NCOATestForward[0]}, {"ncoa.lastLine", "Anytown CA 90210", cass.NCOATestForward[1]}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := p.Process(c.req)
			if diff := cmp.Diff(c.want, r.Address); diff != "" {
				t.Errorf("address (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.correction, r.Corrections); diff != "" {
				t.Errorf("corrections (-want +got):\n%s", diff)
			}
		})
	}
}

// Moves are followed from move to move, at most ten, and a cycle ends.
func TestForwardChains(t *testing.T) {
	p := ncoa.New()
	for i := range 11 {
		register(t, p, "acct", move("", fmt.Sprintf("%d Main St", i+1), "Springfield IL 62701", fmt.Sprintf("%d Main St", i+2), "Springfield IL 62701"))
	}
	for _, c := range []struct{ start, end int }{{1, 11}, {2, 12}, {5, 12}, {12, 12}} {
		r := p.Process(ncoa.Request{Account: "acct", Forward: true, Address: addr(fmt.Sprintf("%d Main St", c.start), "Springfield IL 62701")})
		if got, want := r.Address.Line1, fmt.Sprintf("%d Main St", c.end); got != want {
			t.Errorf("from %d Main St: forwarded to %q, want %q", c.start, got, want)
		}
	}
	register(t, p, "cycle", move("", "1 A St", "Springfield IL 62701", "2 A St", "Springfield IL 62701"))
	register(t, p, "cycle", move("", "2 A St", "Springfield IL 62701", "1 A St", "Springfield IL 62701"))
	// A cycle is followed round once and stops where it began: the moves
	// lead back to the address, which is kept, with no correction.
	for _, start := range []string{"1 A St", "2 A St"} {
		r := p.Process(ncoa.Request{Account: "cycle", Forward: true, Address: addr(start, "Springfield IL 62701")})
		if got := r.Address.Line1; got != start || len(r.Corrections) != 0 {
			t.Errorf("cycle from %s: forwarded to %q, corrections %+v; want %q and none", start, got, r.Corrections, start)
		}
	}
}

// With CASS the address is standardized after NCOA, and the corrections
// show both steps.
func TestForwardThenCASS(t *testing.T) {
	p := ncoa.New()
	register(t, p, "acct", move("", "123 Main Street", "Springfield, IL 62701", "77 oak avenue", "Chicago, IL 60601"))
	r := p.Process(ncoa.Request{Account: "acct", Forward: true, CASS: true, Casing: usps.Upper, Address: addr("123 Main St", "Springfield IL 62701")})
	plus4 := r.Address.Plus4
	want := []ncoa.Correction{
		{"ncoa.addressLine1", "123 Main St", "77 oak avenue"},
		{"ncoa.lastLine", "Springfield IL 62701", "Chicago, IL 60601"},
		{"addressLine1", "77 oak avenue", "77 OAK AVE"},
		{"lastLine", "Chicago, IL 60601", "CHICAGO IL 60601-" + plus4},
		{"city", "Chicago", "CHICAGO"},
		{"plus4Code", "", plus4},
	}
	if diff := cmp.Diff(want, r.Corrections); diff != "" {
		t.Errorf("corrections (-want +got):\n%s", diff)
	}
	if r.Analysis.DpvMatchCode != cass.DPVConfirmed || r.Reason == "" {
		t.Errorf("analysis %+v, reason %q", r.Analysis, r.Reason)
	}
}

// An unreadable last line stays as written, with CASS too.
func TestUnreadableLastLine(t *testing.T) {
	r := ncoa.New().Process(ncoa.Request{CASS: true, Casing: usps.Proper, Address: addr("123 main st", "somewhere")})
	if r.Address.LastLine != "somewhere" || r.Analysis.DpvMatchCode != cass.DPVNotConfirmed {
		t.Errorf("got %+v", r)
	}
}

func TestRegister(t *testing.T) {
	p := ncoa.New()
	for i := range ncoa.MaxMovesPerAccount {
		register(t, p, "acct", move("", fmt.Sprintf("%d Main St", i+1), "Springfield IL 62701", "1 Oak St", "Springfield IL 62702"))
	}
	// Replacing a move at the limit is fine; a new one is not.
	register(t, p, "acct", move("", "1 Main St", "Springfield IL 62701", "2 Oak St", "Springfield IL 62702"))
	if err := p.Register("acct", move("", "0 Main St", "Springfield IL 62701", "1 Oak St", "Springfield IL 62702")); !errors.Is(err, ncoa.ErrFull) {
		t.Fatalf("one move over the limit: got %v, want ErrFull", err)
	}
	// The limit is per account.
	register(t, p, "other", move("", "0 Main St", "Springfield IL 62701", "1 Oak St", "Springfield IL 62702"))
	if r := p.Process(ncoa.Request{Account: "acct", Forward: true, Address: addr("1 Main St", "Springfield IL 62701")}); r.Address.Line1 != "2 Oak St" {
		t.Errorf("replaced move not used: %+v", r.Address)
	}
	// A move from an address that can not be read is refused.
	if err := p.Register("other", move("", "1 Main St", "nowhere", "2 Main St", "Springfield IL 62701")); err == nil || errors.Is(err, ncoa.ErrFull) {
		t.Errorf("unreadable from: got %v", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	p := ncoa.New()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			register(t, p, "acct", move("", fmt.Sprintf("%d Main St", i+1), "Springfield IL 62701", "1 Oak St", "Springfield IL 62702"))
		})
		wg.Go(func() {
			p.Process(ncoa.Request{Account: "acct", Forward: true, CASS: true, Address: addr(fmt.Sprintf("%d Main St", i+1), "Springfield IL 62701")})
		})
	}
	wg.Wait()
}

func BenchmarkProcess(b *testing.B) {
	p := ncoa.New()
	for i := range 100 {
		register(b, p, "acct", move("", fmt.Sprintf("%d Elm St", i+1), "Springfield IL 62704", "77 Oak Ave", "Chicago IL 60601"))
	}
	req := ncoa.Request{Account: "acct", Forward: true, CASS: true, Casing: usps.Proper,
		Individual: "Jane Doe", Address: ncoa.Address{Line1: "123 north main street", Line2: "apt 4b", LastLine: "springfield, il 62701"}}
	for b.Loop() {
		p.Process(req)
	}
}

// TestMovesGiven: a request that brings its account's moves, by Key, is
// forwarded by those and not by the registry; an empty set forwards no one
// the registry would. Key is the same for moves from one address, written
// otherwise, for one name in any case, and differs by name.
func TestMovesGiven(t *testing.T) {
	p := ncoa.New()
	register(t, p, "acct", move("", "123 Main Street", "Springfield, IL 62701", "77 Oak Ave", "Chicago, IL 60601"))
	given := move("jane doe", "123 Main St", "springfield il 62701", "1 Lake St", "Peoria, IL 61602")
	key, err := ncoa.Key(given)
	if err != nil {
		t.Fatal(err)
	}
	req := ncoa.Request{Account: "acct", Address: addr("123 MAIN ST", "Springfield IL 62701"), Individual: "Jane Doe", Forward: true}
	for _, tc := range []struct {
		name  string
		moves map[string]ncoa.Move
		want  string
	}{
		{"the registry's", nil, "77 Oak Ave"},
		{"given", map[string]ncoa.Move{key: given}, "1 Lake St"},
		{"none given", map[string]ncoa.Move{}, "123 MAIN ST"},
	} {
		r := req
		r.Moves = tc.moves
		if got := p.Process(r).Address.Line1; got != tc.want {
			t.Errorf("%s: forwarded to %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, m := range []ncoa.Move{
		move("JANE DOE", "123 Main Street", "Springfield, IL 62701", "5 Other St", "Peoria, IL 61602"),
	} {
		if k, err := ncoa.Key(m); err != nil || k != key {
			t.Errorf("Key(%+v) = %q, %v; want %q", m, k, err, key)
		}
	}
	if k, _ := ncoa.Key(move("", "123 Main St", "Springfield, IL 62701", "1 Lake St", "Peoria, IL 61602")); k == key {
		t.Error("a move for everyone has the key of one for a name")
	}
	if _, err := ncoa.Key(move("", "123 Main St", "nowhere", "1 Lake St", "Peoria, IL 61602")); err == nil {
		t.Error("Key of a move from an unreadable address: no error")
	}
}

// TestStoredMovesReadBack: a move as a store keeps it reads back as it was,
// and a stored form that is not a move is an error, not an empty move.
func TestStoredMovesReadBack(t *testing.T) {
	m := move("jane doe", "123 Main St", "Springfield, IL 62701", "1 Lake St", "Peoria, IL 61602")
	got, err := ncoa.ReadStored(map[string][]byte{"k": ncoa.Stored(m)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]ncoa.Move{"k": m}, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	if _, err := ncoa.ReadStored(map[string][]byte{"k": []byte("[1]")}); err == nil {
		t.Error("a stored form that is not a move: no error")
	}
}
