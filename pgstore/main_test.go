package pgstore_test

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs more tests at once than there are CPUs, unless -parallel
// says otherwise: each test spends its time waiting on the database, mostly
// creating and dropping its schema.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", "8"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
