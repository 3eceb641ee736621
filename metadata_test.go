package lettershop_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
)

func pairs(n int) lettershop.Metadata {
	m := make(lettershop.Metadata, n)
	for i := range m {
		m[i] = lettershop.MetadataPair{Key: fmt.Sprintf("k%d", i), Value: "v"}
	}
	return m
}

func TestMetadataRules(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name   string
		md     lettershop.Metadata
		fields []string
	}{
		{"none", nil, nil},
		{"20 pairs", pairs(20), nil},
		{"21 pairs", pairs(21), []string{"metadata"}},
		{"key of 63", lettershop.Metadata{{Key: strings.Repeat("k", 63), Value: "v"}}, nil},
		{"key of 64", lettershop.Metadata{{Key: strings.Repeat("k", 64), Value: "v"}}, []string{"metadata[0].key"}},
		{"key of 63 runes, more bytes", lettershop.Metadata{{Key: strings.Repeat("é", 63), Value: "v"}}, nil},
		{"value of 511", lettershop.Metadata{{Key: "k", Value: strings.Repeat("v", 511)}}, nil},
		{"value of 512", lettershop.Metadata{{Key: "k", Value: strings.Repeat("v", 512)}}, []string{"metadata[0].value"}},
		{"empty value is a flag", lettershop.Metadata{{Key: "vip", Value: ""}}, nil},
		{"empty key", lettershop.Metadata{{Key: "", Value: "v"}}, []string{"metadata[0].key"}},
		{"duplicate key", lettershop.Metadata{{Key: "k", Value: "1"}, {Key: "k", Value: "2"}}, []string{"metadata[1].key"}},
		{"NUL in value", lettershop.Metadata{{Key: "k", Value: "a\x00b"}}, []string{"metadata[0].value"}},
		{"NUL in key", lettershop.Metadata{{Key: "k\x00", Value: "v"}}, []string{"metadata[0].key"}},
		{"invalid UTF-8 value", lettershop.Metadata{{Key: "k", Value: "\xff"}}, []string{"metadata[0].value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "n", Metadata: tc.md})
			if tc.fields == nil {
				if err != nil {
					t.Fatalf("want success, got %v", err)
				}
				want := tc.md
				if want == nil {
					want = lettershop.Metadata{}
				}
				if diff := cmp.Diff(want, a.Metadata, ignoreUnexported); diff != "" {
					t.Errorf("metadata (-want +got):\n%s", diff)
				}
				return
			}
			wantFields(t, err, tc.fields...)
		})
	}
}

func TestMetadataJSON(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name   string
		body   string
		fields []string
	}{
		{"strings", `[{"key":"a","value":"1"},{"key":"b","value":""}]`, nil},
		{"number value", `[{"key":"a","value":1}]`, []string{"metadata[0].value"}},
		{"nested value", `[{"key":"a","value":{"x":"y"}}]`, []string{"metadata[0].value"}},
		{"array value", `[{"key":"a","value":["x"]}]`, []string{"metadata[0].value"}},
		{"null value", `[{"key":"a","value":null}]`, []string{"metadata[0].value"}},
		{"number key", `[{"key":1,"value":"1"}]`, []string{"metadata[0].key"}},
		{"unknown field", `[{"key":"a","value":"1","extra":"x"}]`, []string{"metadata[0]"}},
		{"not an object", `["a"]`, []string{"metadata[0]"}},
		{"second bad, first fine", `[{"key":"a","value":"1"},{"key":"b","value":true}]`, []string{"metadata[1].value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var md lettershop.Metadata
			if err := json.Unmarshal([]byte(tc.body), &md); err != nil {
				t.Fatalf("decoding must not fail outright: %v", err)
			}
			_, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "n", Metadata: md})
			if tc.fields == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantFields(t, err, tc.fields...)
		})
	}
}

func TestMetadataUpdateReplaces(t *testing.T) {
	e := newEnv(t)
	a, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "n", Metadata: pairs(3)})
	if err != nil {
		t.Fatal(err)
	}
	repl := lettershop.Metadata{{Key: "only", Value: "one"}}
	u, err := e.svc.UpdateAsset(e.ctx, acct, a.ID, lettershop.UpdateAssetInput{Metadata: &repl})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(repl, u.Metadata, ignoreUnexported); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	// A returned value is a copy: changing it changes nothing stored.
	u.Metadata[0].Value = "changed"
	got, _ := e.svc.GetAsset(e.ctx, acct, a.ID)
	if got.Metadata[0].Value != "one" {
		t.Errorf("stored metadata changed through a returned value: %v", got.Metadata)
	}
}

// A list's metadata filter given from Go is refused as the HTTP API
// refuses its query, naming the same parameters: an empty key (metadata[]),
// a key given twice (metadata[key]), more pairs than an object holds
// (metadata). Up to that many pairs, and an empty value, are a filter.
func TestListMetadataFilterRefused(t *testing.T) {
	e := newEnv(t)
	asset, _ := e.publishedTemplate(t, acct)
	in := letterInput(asset.ID)
	in.Metadata = pairs(lettershop.MaxMetadataPairs)
	l, err := e.svc.CreateLetter(e.ctx, acct, in)
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.svc.CreateAsset(e.ctx, acct, lettershop.CreateAssetInput{Name: "tagged", Metadata: pairs(lettershop.MaxMetadataPairs)})
	if err != nil {
		t.Fatal(err)
	}
	lists := map[string]func(lettershop.Metadata) ([]string, error){
		"letters": func(m lettershop.Metadata) ([]string, error) {
			p, err := e.svc.ListLetters(e.ctx, acct, lettershop.ListLettersInput{Metadata: m})
			var ids []string
			for _, x := range p.Items {
				ids = append(ids, x.ID)
			}
			return ids, err
		},
		"assets": func(m lettershop.Metadata) ([]string, error) {
			p, err := e.svc.ListAssets(e.ctx, acct, lettershop.ListAssetsInput{Metadata: m})
			var ids []string
			for _, x := range p.Items {
				ids = append(ids, x.ID)
			}
			return ids, err
		},
	}
	want := map[string]string{"letters": l.ID, "assets": a.ID}
	for name, list := range lists {
		for _, tt := range []struct {
			what  string
			m     lettershop.Metadata
			field string
		}{
			{"empty key", lettershop.Metadata{{Key: "", Value: "v"}}, "metadata[]"},
			{"key twice", lettershop.Metadata{{Key: "k0", Value: "v"}, {Key: "k0", Value: "w"}}, "metadata[k0]"},
			{"key twice, one value", lettershop.Metadata{{Key: "k1", Value: "v"}, {Key: "k1", Value: "v"}}, "metadata[k1]"},
			{"over the pairs an object holds", pairs(lettershop.MaxMetadataPairs + 1), "metadata"},
		} {
			if _, err := list(tt.m); err == nil {
				t.Errorf("%s, %s: no error", name, tt.what)
			} else {
				wantFields(t, err, tt.field)
			}
		}
		ids, err := list(pairs(lettershop.MaxMetadataPairs))
		if err != nil || len(ids) != 1 || ids[0] != want[name] {
			t.Errorf("%s, %d pairs: %v %v, want [%s]", name, lettershop.MaxMetadataPairs, ids, err, want[name])
		}
		if ids, err := list(lettershop.Metadata{{Key: "k0", Value: ""}}); err != nil || len(ids) != 0 {
			t.Errorf("%s, an empty value: %v %v, want none", name, ids, err)
		}
	}
}
