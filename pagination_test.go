package lettershop_test

import (
	"encoding/base64"
	"sync"
	"testing"

	"github.com/lettershop/lettershop"
)

func TestPageSize(t *testing.T) {
	e := newEnv(t)
	for i := 0; i < 101; i++ {
		if _, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "a"}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		size, want int
		invalid    bool
	}{
		{0, 10, false}, {1, 1, false}, {100, 100, false}, {101, 0, true}, {-1, 0, true},
	}
	for _, tc := range tests {
		p, err := e.svc.ListAssets(e.ctx, acct, lettershop.ListAssetsInput{PageRequest: lettershop.PageRequest{PageSize: tc.size}})
		if tc.invalid {
			wantFields(t, err, "pageSize")
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) != tc.want || p.NextToken == "" {
			t.Errorf("pageSize %d: %d items, token %q", tc.size, len(p.Items), p.NextToken)
		}
	}
	p, _ := e.svc.ListAssets(e.ctx, "acct_empty", lettershop.ListAssetsInput{})
	if p.Items == nil || len(p.Items) != 0 || p.NextToken != "" {
		t.Errorf("an empty list: %+v", p)
	}
}

// TestPaginationWalkWhileInserting walks 1,000 letters in pages of 7 while
// others are created: every letter that existed when the walk began is seen
// exactly once.
func TestPaginationWalkWhileInserting(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct)
	existing := map[string]bool{}
	for i := 0; i < 1000; i++ {
		l, err := e.svc.CreateLetter(e.ctx, acct, letterInput(a.ID))
		if err != nil {
			t.Fatal(err)
		}
		existing[l.ID] = true
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := e.svc.CreateLetter(e.ctx, acct, letterInput(a.ID)); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	seen := map[string]int{}
	token, pages := "", 0
	for {
		p, err := e.svc.ListLetters(e.ctx, acct, lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{PageSize: 7, NextToken: token}})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(p.Items) > 7 {
			t.Fatalf("page of %d", len(p.Items))
		}
		for _, l := range p.Items {
			seen[l.ID]++
		}
		if p.NextToken == "" {
			break
		}
		token = p.NextToken
	}
	close(stop)
	wg.Wait()
	for id := range existing {
		if seen[id] != 1 {
			t.Errorf("letter %s seen %d times", id, seen[id])
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("letter %s seen %d times", id, n)
		}
	}
	if pages < 1000/7 {
		t.Errorf("%d pages", pages)
	}
}

func TestPaginationTokens(t *testing.T) {
	e := newEnv(t)
	a, _ := e.publishedTemplate(t, acct)
	o, _ := e.publishedTemplate(t, "acct_other")
	for i := 0; i < 5; i++ {
		if _, err := e.svc.CreateLetter(e.ctx, acct, letterInput(a.ID)); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.CreateLetter(e.ctx, "acct_other", letterInput(o.ID)); err != nil {
			t.Fatal(err)
		}
	}
	first, err := e.svc.ListLetters(e.ctx, acct, lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{PageSize: 2}})
	if err != nil {
		t.Fatal(err)
	}
	tok := first.NextToken
	raw, _ := base64.RawURLEncoding.DecodeString(tok)
	raw[len(raw)-1] ^= 1
	flipped := base64.RawURLEncoding.EncodeToString(raw)
	raw[len(raw)-1] ^= 1
	raw[4] ^= 1 // a byte of the id
	otherID := base64.RawURLEncoding.EncodeToString(raw)
	// The same token from a Service with another key.
	other := newEnv(t, lettershop.WithTokenKey([]byte("another key")))

	tests := []struct {
		name    string
		account string
		in      lettershop.ListLettersInput
		svc     *lettershop.Service
		ok      bool
	}{
		{"same walk", acct, lettershop.ListLettersInput{}, e.svc, true},
		{"tampered mac", acct, lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{NextToken: flipped}}, e.svc, false},
		{"tampered id", acct, lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{NextToken: otherID}}, e.svc, false},
		{"another account", "acct_other", lettershop.ListLettersInput{}, e.svc, false},
		{"other filters", acct, lettershop.ListLettersInput{Status: lettershop.StatusQueued}, e.svc, false},
		{"other metadata filter", acct, lettershop.ListLettersInput{Metadata: lettershop.Metadata{{Key: "a", Value: "b"}}}, e.svc, false},
		{"another key", acct, lettershop.ListLettersInput{}, other.svc, false},
		{"malformed", acct, lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{NextToken: "!!not base64!!"}}, e.svc, false},
		{"short", acct, lettershop.ListLettersInput{PageRequest: lettershop.PageRequest{NextToken: "abc"}}, e.svc, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			if in.NextToken == "" {
				in.NextToken = tok
			}
			in.PageSize = 2
			p, err := tc.svc.ListLetters(e.ctx, tc.account, in)
			if tc.ok {
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Items) != 2 || p.Items[0].ID == first.Items[0].ID || p.Items[0].ID == first.Items[1].ID {
					t.Errorf("the second page repeats the first")
				}
				return
			}
			wantFields(t, err, "nextToken")
		})
	}
	// A letters token does not continue an assets list.
	_, err = e.svc.ListAssets(e.ctx, acct, lettershop.ListAssetsInput{PageRequest: lettershop.PageRequest{NextToken: tok}})
	wantFields(t, err, "nextToken")
}
