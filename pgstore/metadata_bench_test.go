package pgstore_test

import (
	"context"
	"testing"

	"github.com/lettershop/lettershop/storage"
)

// skewedLetters is the size of the account BenchmarkListLettersMetadataSkewed
// lists: every letter holds a=1, one in every skewedEvery holds b=some, and
// one in every skewedRare holds c=rare.
const (
	skewedLetters = 20_000
	skewedEvery   = 100
	skewedRare    = 5_000
)

// loadSkewed fills account acct_skewed of a new schema with skewedLetters
// letters of a 1.3 kB document, ids in i order, and returns the store.
func loadSkewed(b *testing.B) storage.Storage {
	b.Helper()
	schema := newSchema(b)
	s := openStore(b, schema)
	conn := adminConn(b, schema)
	ctx := b.Context()
	if _, err := conn.Exec(ctx, `INSERT INTO letters (id, account, status, external_id, metadata, created_at, modified_at, due_at, revision, data)
		SELECT format('ltr_%s', lpad(i::text, 8, '0')), 'acct_skewed', 'mailed', '',
			jsonb_build_array(jsonb_build_object('key', 'a', 'value', '1'))
				|| CASE WHEN i % $3 = 0 THEN jsonb_build_array(jsonb_build_object('key', 'b', 'value', 'some')) ELSE '[]' END
				|| CASE WHEN i % $4 = 0 THEN jsonb_build_array(jsonb_build_object('key', 'c', 'value', 'rare')) ELSE '[]' END,
			$1, $1, NULL, 1, $2
		FROM generate_series(1, $5::int) AS i`, benchEpoch, benchDoc, skewedEvery, skewedRare, skewedLetters); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `ANALYZE letters; ANALYZE letter_metadata`); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkListLettersMetadataSkewed reads the first page of 100 letters (101
// asked) filtered by two metadata pairs of an account of 20,000 letters that
// all hold the first: a page should cost what it returns, not the letters
// holding the first pair.
func BenchmarkListLettersMetadataSkewed(b *testing.B) {
	s := loadSkewed(b)
	ctx := context.Background()
	const page = 101
	cases := []struct {
		name string
		md   []storage.Metadata
		want int
	}{
		// The pair every letter holds, alone: the walk of its index.
		{"a", md("a", "1"), page},
		// No letter holds b=2.
		{"a-b-absent", md("a", "1", "b", "2"), 0},
		// One letter in 100 holds b=some: the page spans 10,100 letters.
		{"a-b-some", md("a", "1", "b", "some"), page},
		// The rarer pair first, as listing the rarest first used to need.
		{"b-some-a", md("b", "some", "a", "1"), page},
		// Four letters hold c=rare.
		{"a-c-rare", md("a", "1", "c", "rare"), skewedLetters / skewedRare},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			q := storage.LetterQuery{Account: "acct_skewed", Metadata: tc.md, Limit: page}
			for b.Loop() {
				got, err := s.ListLetters(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				if len(got) != tc.want {
					b.Fatalf("got %d letters, want %d", len(got), tc.want)
				}
			}
		})
	}
}
