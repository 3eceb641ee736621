package lettershop

import (
	"slices"
	"testing"
)

// TestContentOf checks what a snapshot keeps of the content a letter refers
// to: the stored template and the assets it shows, never the URL of
// content fetched when the letter is printed (which no store holds).
func TestContentOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		snap contentSnapshot
		want []string
	}{
		{"stored", contentSnapshot{Hash: "abc", Assets: []assetRef{{Hash: "img"}}}, []string{"abc", "img"}},
		{"kept at a URL", contentSnapshot{Hash: "https://example.com/t.html", Assets: []assetRef{{Hash: "img"}}}, []string{"img"}},
	} {
		got, err := contentOf("letter", letterDocument(&Letter{snapshot: tc.snap}))
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := contentOf("letter", letterDocument(&Letter{})); err == nil {
		t.Error("a letter without content: no error")
	}
}
