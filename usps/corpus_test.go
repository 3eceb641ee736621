package usps_test

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lettershop/lettershop/usps"
)

// corpusPassRate is the share of the corpus that must standardize exactly
// as Publication 28 prescribes.
const corpusPassRate = 0.98

// corpusMinCases is the least number of cases the corpus must hold.
const corpusMinCases = 1500

// corpusCase is one row of testdata/corpus.tsv: delivery lines as some
// source wrote them, and the lines Publication 28 makes of them.
type corpusCase struct {
	id, source, state     string
	line1, line2          string
	want1, want2, wantUrb string
}

func (c corpusCase) address() usps.Address {
	return usps.Address{Line1: c.line1, Line2: c.line2, State: c.state}
}

func readCorpus(tb testing.TB) []corpusCase {
	tb.Helper()
	f, err := os.Open("testdata/corpus.tsv")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var cases []corpusCase
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 8 {
			tb.Fatalf("corpus.tsv:%d: %d fields, want 8", n, len(f))
		}
		c := corpusCase{id: f[0], source: f[1], state: f[2], line1: f[3], line2: f[4], want1: f[5], want2: f[6], wantUrb: f[7]}
		if seen[c.id] {
			tb.Fatalf("corpus.tsv:%d: id %s used twice", n, c.id)
		}
		seen[c.id] = true
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return cases
}

// reDisagreement matches a row of the known-disagreements table in
// SOURCES.md: | `id` | ... |.
var reDisagreement = regexp.MustCompile("(?m)^\\| `([a-z0-9.-]+-[0-9]{3})` \\|")

// knownDisagreements returns the ids SOURCES.md lists as cases the package
// does not standardize as the corpus expects.
func knownDisagreements(tb testing.TB) []string {
	tb.Helper()
	b, err := os.ReadFile("testdata/SOURCES.md")
	if err != nil {
		tb.Fatal(err)
	}
	var ids []string
	for _, m := range reDisagreement.FindAllStringSubmatch(string(b), -1) {
		ids = append(ids, m[1])
	}
	return ids
}

func lines(a usps.Address) (string, string, string) { return a.Line1, a.Line2, a.Urbanization }

// TestCorpus standardizes every case of the corpus: the share that comes
// out as Publication 28 prescribes must reach corpusPassRate, and the cases
// that do not must be exactly those SOURCES.md lists and explains.
func TestCorpus(t *testing.T) {
	cases := readCorpus(t)
	if len(cases) < corpusMinCases {
		t.Fatalf("the corpus has %d cases, want at least %d", len(cases), corpusMinCases)
	}
	var failed []string
	for _, c := range cases {
		got := usps.Standardize(c.address(), usps.Upper)
		g1, g2, gu := lines(got)
		if g1 != c.want1 || g2 != c.want2 || gu != c.wantUrb {
			failed = append(failed, c.id)
			if testing.Verbose() {
				t.Logf("%s: %q | %q -> %q | %q ~ %q, want %q | %q ~ %q", c.id, c.line1, c.line2, g1, g2, gu, c.want1, c.want2, c.wantUrb)
			}
		}
		for _, l := range []string{got.Line1, got.Line2} {
			if utf8.RuneCountInString(l) > usps.MaxLineLength {
				t.Errorf("%s: line %q is longer than %d characters", c.id, l, usps.MaxLineLength)
			}
		}
		if again := usps.Standardize(got, usps.Upper); again != got {
			t.Errorf("%s: standardizing %+v again gives %+v", c.id, got, again)
		}
	}
	rate := 1 - float64(len(failed))/float64(len(cases))
	t.Logf("corpus: %d cases, %d disagree, pass rate %.2f%%", len(cases), len(failed), 100*rate)
	if rate < corpusPassRate {
		t.Errorf("pass rate %.4f is below %.2f", rate, corpusPassRate)
	}
	known := knownDisagreements(t)
	slices.Sort(known)
	slices.Sort(failed)
	for _, id := range failed {
		if _, ok := slices.BinarySearch(known, id); !ok {
			t.Errorf("%s disagrees with the corpus and is not listed in SOURCES.md", id)
		}
	}
	for _, id := range known {
		if _, ok := slices.BinarySearch(failed, id); !ok {
			t.Errorf("%s is listed in SOURCES.md as a disagreement but now passes", id)
		}
	}
}

// BenchmarkStandardizeCorpus standardizes the whole corpus once per
// iteration.
func BenchmarkStandardizeCorpus(b *testing.B) {
	cases := readCorpus(b)
	in := make([]usps.Address, len(cases))
	for i, c := range cases {
		in[i] = c.address()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, a := range in {
			usps.Standardize(a, usps.Upper)
		}
	}
}
