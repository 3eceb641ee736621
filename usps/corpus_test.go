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

// corpusPassRate is the share of the corpus, and of its third-party
// part, that must standardize exactly as Publication 28 prescribes.
const corpusPassRate = 0.995

// sourcePassRate is the least share of any one source's cases that must.
// It is lower than corpusPassRate because a source can be small and about
// what no rule can know: usaddress-more's cities are written with the City
// State file's own abbreviations (HUNTINGTON BH), which only its data
// spells out.
const sourcePassRate = 0.85

// corpusMinCases is the least number of cases the corpus must hold.
const corpusMinCases = 2000

// corpusCase is one row of testdata/corpus.tsv: delivery lines as some
// source wrote them, and the lines Publication 28 makes of them; and,
// where the row has them, the city as written and the city and state
// Publication 28 makes of the city and the state column.
type corpusCase struct {
	id, source, state     string
	line1, line2          string
	want1, want2, wantUrb string
	lastLine              bool
	city, wantCity        string
	wantState             string
}

// thirdParty reports whether the case comes from another project's test
// suite or labelled data, and not from Publication 28 itself.
func (c corpusCase) thirdParty() bool { return !strings.HasPrefix(c.source, "pub28-") }

func (c corpusCase) address() usps.Address {
	return usps.Address{Line1: c.line1, Line2: c.line2, State: c.state, City: c.city}
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
		if len(f) != 8 && len(f) != 11 {
			tb.Fatalf("corpus.tsv:%d: %d fields, want 8 or 11", n, len(f))
		}
		c := corpusCase{id: f[0], source: f[1], state: f[2], line1: f[3], line2: f[4], want1: f[5], want2: f[6], wantUrb: f[7]}
		if len(f) == 11 {
			c.lastLine, c.city, c.wantCity, c.wantState = true, f[8], f[9], f[10]
		}
		if !strings.HasPrefix(c.id, c.source+"-") {
			tb.Fatalf("corpus.tsv:%d: id %s does not name its source %s", n, c.id, c.source)
		}
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

// sourceRate is how one source (or a group of them) fares.
type sourceRate struct {
	name          string
	cases, failed int
}

func (r sourceRate) rate() float64 { return 1 - float64(r.failed)/float64(r.cases) }

// TestCorpus standardizes every case of the corpus and prints, with -v, the
// pass rate of each source, of the third-party sources together, and of
// the whole. The whole, the third-party part and each source must reach
// their rates, and the cases that fail must be exactly those SOURCES.md
// lists and explains.
func TestCorpus(t *testing.T) {
	cases := readCorpus(t)
	if len(cases) < corpusMinCases {
		t.Fatalf("the corpus has %d cases, want at least %d", len(cases), corpusMinCases)
	}
	var failed []string
	bySource := map[string]*sourceRate{}
	all, third := sourceRate{name: "all"}, sourceRate{name: "third-party"}
	for _, c := range cases {
		got := usps.Standardize(c.address(), usps.Upper)
		g1, g2, gu := lines(got)
		ok := g1 == c.want1 && g2 == c.want2 && gu == c.wantUrb
		if c.lastLine {
			ok = ok && got.City == c.wantCity && got.State == c.wantState
		}
		r := bySource[c.source]
		if r == nil {
			r = &sourceRate{name: c.source}
			bySource[c.source] = r
		}
		for _, r := range []*sourceRate{r, &all, &third} {
			if r == &third && !c.thirdParty() {
				continue
			}
			r.cases++
			if !ok {
				r.failed++
			}
		}
		if !ok {
			failed = append(failed, c.id)
			if testing.Verbose() {
				t.Logf("%s: %q | %q -> %q | %q ~ %q [%s %s], want %q | %q ~ %q [%s %s]", c.id, c.line1, c.line2,
					g1, g2, gu, got.City, got.State, c.want1, c.want2, c.wantUrb, c.wantCity, c.wantState)
			}
		}
		for _, l := range []string{got.Line1, got.Line2, got.Urbanization, got.LastLine()} {
			if utf8.RuneCountInString(l) > usps.MaxLineLength {
				t.Errorf("%s: line %q is longer than %d characters", c.id, l, usps.MaxLineLength)
			}
		}
		if again := usps.Standardize(got, usps.Upper); again != got {
			t.Errorf("%s: standardizing %+v again gives %+v", c.id, got, again)
		}
	}
	sources := make([]*sourceRate, 0, len(bySource))
	for _, r := range bySource {
		sources = append(sources, r)
	}
	slices.SortFunc(sources, func(a, b *sourceRate) int { return strings.Compare(a.name, b.name) })
	weakest := sources[0]
	for _, r := range sources {
		t.Logf("%-24s %5d cases %3d disagree %7.2f%%", r.name, r.cases, r.failed, 100*r.rate())
		if r.rate() < weakest.rate() {
			weakest = r
		}
		if r.rate() < sourcePassRate {
			t.Errorf("source %s: pass rate %.4f is below %.2f", r.name, r.rate(), sourcePassRate)
		}
	}
	for _, r := range []sourceRate{third, all} {
		t.Logf("%-24s %5d cases %3d disagree %7.2f%%", r.name, r.cases, r.failed, 100*r.rate())
		if r.rate() < corpusPassRate {
			t.Errorf("%s: pass rate %.4f is below %.3f", r.name, r.rate(), corpusPassRate)
		}
	}
	t.Logf("weakest source: %s, %.2f%%", weakest.name, 100*weakest.rate())
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
