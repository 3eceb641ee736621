package httpadapter

import (
	"strconv"
	"testing"
)

// BenchmarkJournalRecord is what the journal costs a request on a server
// with the test routes: for an account whose journal is full, and for a
// fresh account each time (the sandbox's worst case, which makes the
// controls drop accounts once they are at their bound).
//
//	go test ./httpadapter -run '^$' -bench JournalRecord -benchmem
func BenchmarkJournalRecord(b *testing.B) {
	e := JournalEntry{Method: "GET", Path: "/v1/letters/ltr_01kjqh0cc0abyzr1s1gch2evrn", RequestID: "req_6mmeapxghdhmzm3ad2r3u7ucoa"}
	b.Run("one-account", func(b *testing.B) {
		tc := NewTestControls(1)
		b.ReportAllocs()
		for b.Loop() {
			tc.record("acct_a", e)
		}
	})
	b.Run("fresh-accounts", func(b *testing.B) {
		tc := NewTestControls(1)
		ids := make([]string, 1<<16)
		for i := range ids {
			ids[i] = "acct_" + strconv.Itoa(i)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			tc.record(ids[i%len(ids)]+"_"+strconv.Itoa(i/len(ids)), e)
			i++
		}
	})
}

// BenchmarkNewTestControls is what the controls cost a test server that
// makes them (lettershoptest.New makes one per test).
//
//	go test ./httpadapter -run '^$' -bench NewTestControls -benchmem
func BenchmarkNewTestControls(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = NewTestControls(1)
	}
}
