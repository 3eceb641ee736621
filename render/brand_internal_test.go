package render

import (
	"crypto/sha256"
	"slices"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/gosmallcaps"
)

func TestParseLength(t *testing.T) {
	tests := []struct {
		in   string
		bare bool
		want length
		ok   bool
	}{
		{"192", true, length{v: 144}, true},
		{"192", false, length{}, false},
		{"192px", false, length{v: 144}, true},
		{"2in", false, length{v: 144}, true},
		{"2.54cm", false, length{v: 72}, true},
		{"50%", false, length{v: 50, pct: true}, true},
		{"auto", true, length{}, false},
		{"-3px", false, length{}, false},
		{"3em", false, length{}, false},
	}
	for _, tt := range tests {
		got, ok := parseLength(tt.in, tt.bare)
		if ok != tt.ok || (ok && (got.pct != tt.want.pct || got.v < tt.want.v-1e-9 || got.v > tt.want.v+1e-9)) {
			t.Errorf("parseLength(%q, %v) = %+v, %v; want %+v, %v", tt.in, tt.bare, got, ok, tt.want, tt.ok)
		}
	}
}

func TestStyleSheetFontFaces(t *testing.T) {
	ss := &styleSheet{}
	ss.parse(`/* brand */ @media print { p { font-family: X } }
@font-face { font-family: "Brand Sans"; src: url('{{regular}}') format("truetype") }
@font-face { font-family: Brand Sans; font-weight: 700; src: url({{bold}}) }
h1, H2 { font-family: 'Brand Sans', serif }`)
	if len(ss.faces) != 2 || ss.faces[0].src != "{{regular}}" || ss.faces[1].src != "{{bold}}" || !ss.faces[1].bold {
		t.Fatalf("faces = %+v", ss.faces)
	}
	if len(ss.families) != 1 || ss.families[0] != "brand sans" {
		t.Fatalf("families = %v", ss.families)
	}
	if len(ss.tagFamily) != 2 {
		t.Fatalf("tag families = %v, want h1 and h2 only", ss.tagFamily)
	}
	if st := ss.applyFamily("Unknown, 'Brand Sans'", inlineStyle{}); st.family != 1 {
		t.Errorf("family = %d, want the brand family", st.family)
	}
	if st := ss.applyFamily("monospace", inlineStyle{}); !st.mono {
		t.Error("monospace is not the mono face")
	}
}

func TestBrandFontFallsBack(t *testing.T) {
	f, err := brandFace(gosmallcaps.TTF)
	if err != nil {
		t.Fatal(err)
	}
	d := newDocument(Letter{})
	d.faces = append(d.faces, f)
	d.uses = append(d.uses, nil)
	d.brand = [][4]int{{len(fontKeys), len(fontKeys), len(fontKeys), len(fontKeys)}}
	st := inlineStyle{family: 1, size: 10}
	var runs []string
	d.runs("Abc 你好 d", st, d.slot(st), func(part string, slot int) {
		runs = append(runs, part+"@"+map[bool]string{true: "brand", false: "letter"}[slot == len(fontKeys)])
	})
	if got := strings.Join(runs, "|"); got != "Abc @brand|你好@letter| d@brand" {
		t.Errorf("runs = %s", got)
	}
	if w := d.width("Abc", st); w != f.width("Abc", 10) {
		t.Errorf("width = %v, want the brand face's %v", w, f.width("Abc", 10))
	}
}

func TestCheckFont(t *testing.T) {
	if msg := CheckFont(gosmallcaps.TTF); msg != "" {
		t.Errorf("Go Smallcaps: %s", msg)
	}
	cff := append([]byte("OTTO"), gosmallcaps.TTF[4:]...)
	if msg := CheckFont(cff); !strings.Contains(msg, "PostScript (CFF) outlines") && !strings.Contains(msg, "can not be read") {
		t.Errorf("CFF font: %q", msg)
	}
	if msg := CheckFont([]byte("not a font")); !strings.Contains(msg, "can not be read") {
		t.Errorf("not a font: %q", msg)
	}
}

// The brand faces read are kept for any account's letters, each holding
// its font file, of up to 16 MiB: they are kept to brandFacesBytes in all,
// the oldest going first. Forty fonts of 10 MiB kept 32 of them, 330 MB.
func TestBrandFacesKeptByBytes(t *testing.T) {
	brandFaces.Lock()
	brandFaces.m, brandFaces.order, brandFaces.bytes = map[[sha256.Size]byte]*face{}, nil, 0
	brandFaces.Unlock()
	const size = 10 << 20
	var last *face
	for i := range 5 {
		data := append(slices.Clip(gosmallcaps.TTF), make([]byte, size-len(gosmallcaps.TTF))...)
		data[size-1] = byte(i + 1) // a file of its own
		f, err := brandFace(data)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := brandFace(data); again != f {
			t.Errorf("font %d is not kept", i)
		}
		last = f
	}
	brandFaces.Lock()
	defer brandFaces.Unlock()
	if n := len(brandFaces.m); n != brandFacesBytes/size {
		t.Errorf("%d faces of %d bytes kept, want %d", n, size, brandFacesBytes/size)
	}
	if brandFaces.m[brandFaces.order[len(brandFaces.order)-1]] != last {
		t.Error("the face read last is not kept")
	}
}
