package render

import (
	"bytes"
	"embed"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// The 14 standard PDF fonts: a PDF may use them without embedding them,
// since every PDF reader carries them, and common generators write such
// PDFs by default. A document that does is accepted, and printed with
// Helvetica, Times and Courier embedded in their place, so that it looks
// the same wherever it is printed: the fonts of stdfonts/, made from
// Liberation 2 (SIL Open Font License 1.1; see stdfonts/make.py), whose
// glyphs have the same widths as those fonts'. Symbol and ZapfDingbats
// have no such free counterpart here: they stay as the document has them,
// to the reader's own copy.

//go:embed stdfonts/*.ttf
var stdFontFiles embed.FS

// standardFonts maps each of the 14 standard fonts' names to the file
// embedded in its place; "" for the two printed as they are.
var standardFonts = map[string]string{
	"Helvetica": "LettershopSans-Regular", "Helvetica-Bold": "LettershopSans-Bold",
	"Helvetica-Oblique": "LettershopSans-Italic", "Helvetica-BoldOblique": "LettershopSans-BoldItalic",
	"Times-Roman": "LettershopSerif-Regular", "Times-Bold": "LettershopSerif-Bold",
	"Times-Italic": "LettershopSerif-Italic", "Times-BoldItalic": "LettershopSerif-BoldItalic",
	"Courier": "LettershopMono-Regular", "Courier-Bold": "LettershopMono-Bold",
	"Courier-Oblique": "LettershopMono-Italic", "Courier-BoldOblique": "LettershopMono-BoldItalic",
	"Symbol": "", "ZapfDingbats": "",
}

// standardFont reports whether a font dictionary is one of the 14
// standard fonts, not embedded: a simple Type 1 font by one of their
// names.
func standardFont(d types.Dict) bool {
	sub, name := d.NameEntry("Subtype"), d.NameEntry("BaseFont")
	if name == nil || (sub != nil && *sub != "Type1") {
		return false
	}
	_, ok := standardFonts[*name]
	return ok
}

// stdFont is a standard font's stand-in, read once: its font file as
// embedded, compressed, and its descriptor's metrics.
type stdFont struct {
	once sync.Once
	raw  []byte // the zlib stream of the font file
	size int    // the font file's length
	face *face
	err  error
}

var stdFonts = func() map[string]*stdFont {
	m := map[string]*stdFont{}
	for _, file := range standardFonts {
		if file != "" {
			m[file] = &stdFont{}
		}
	}
	return m
}()

func loadStdFont(file string) (*stdFont, error) {
	sf := stdFonts[file]
	sf.once.Do(func() {
		data, err := stdFontFiles.ReadFile("stdfonts/" + file + ".ttf")
		if err != nil {
			sf.err = err
			return
		}
		if sf.face, err = loadBrandFace(file, data); err != nil {
			sf.err = fmt.Errorf("font %s: %w", file, err)
			return
		}
		sf.raw, sf.size = deflateBest(data), len(data)
	})
	return sf, sf.err
}

// standardDifferences is StandardEncoding, the encoding a standard font
// has when its dictionary names none, as the codes where it differs from
// WinAnsiEncoding: a TrueType font is given WinAnsiEncoding with these
// differences in its place.
var standardDifferences = types.Array{
	types.Integer(39), types.Name("quoteright"),
	types.Integer(96), types.Name("quoteleft"),
	types.Integer(164), types.Name("fraction"),
	types.Integer(166), types.Name("florin"),
	types.Integer(168), types.Name("currency"), types.Name("quotesingle"), types.Name("quotedblleft"),
	types.Integer(172), types.Name("guilsinglleft"), types.Name("guilsinglright"), types.Name("fi"), types.Name("fl"),
	types.Integer(177), types.Name("endash"), types.Name("dagger"), types.Name("daggerdbl"), types.Name("periodcentered"),
	types.Integer(183), types.Name("bullet"), types.Name("quotesinglbase"), types.Name("quotedblbase"), types.Name("quotedblright"),
	types.Integer(188), types.Name("ellipsis"), types.Name("perthousand"),
	types.Integer(193), types.Name("grave"), types.Name("acute"), types.Name("circumflex"), types.Name("tilde"),
	types.Name("macron"), types.Name("breve"), types.Name("dotaccent"), types.Name("dieresis"),
	types.Integer(202), types.Name("ring"), types.Name("cedilla"),
	types.Integer(205), types.Name("hungarumlaut"), types.Name("ogonek"), types.Name("caron"), types.Name("emdash"),
	types.Integer(225), types.Name("AE"),
	types.Integer(227), types.Name("ordfeminine"),
	types.Integer(232), types.Name("Lslash"), types.Name("Oslash"), types.Name("OE"), types.Name("ordmasculine"),
	types.Integer(241), types.Name("ae"),
	types.Integer(245), types.Name("dotlessi"),
	types.Integer(248), types.Name("lslash"), types.Name("oslash"), types.Name("oe"), types.Name("germandbls"),
}

// embedStandardFonts returns the document with each standard font it
// uses without embedding (but Symbol and ZapfDingbats) made a TrueType
// font of the same metrics, embedded.
func embedStandardFonts(data []byte) ([]byte, error) {
	ctx, err := api.ReadContext(bytes.NewReader(data), config())
	if err != nil {
		return nil, fmt.Errorf("read the document: %w", err)
	}
	// One font file object per stand-in, however many dictionaries use it.
	files := map[string]types.IndirectRef{}
	changed := false
	for _, nr := range slices.Sorted(maps.Keys(ctx.Table)) {
		e := ctx.Table[nr]
		if e == nil || e.Free {
			continue
		}
		d, ok := e.Object.(types.Dict)
		if !ok || d.NameEntry("Type") == nil || *d.NameEntry("Type") != "Font" || !standardFont(d) || fontEmbedded(ctx, d) {
			continue
		}
		file := standardFonts[*d.NameEntry("BaseFont")]
		if file == "" {
			continue
		}
		sf, err := loadStdFont(file)
		if err != nil {
			return nil, err
		}
		ref, ok := files[file]
		if !ok {
			sd := types.StreamDict{Dict: types.NewDict(), Raw: sf.raw,
				FilterPipeline: []types.PDFFilter{{Name: "FlateDecode"}}}
			n := int64(len(sf.raw))
			sd.StreamLength = &n
			sd.InsertName("Filter", "FlateDecode")
			sd.InsertInt("Length", len(sf.raw))
			sd.InsertInt("Length1", sf.size)
			r, err := ctx.IndRefForNewObject(sd)
			if err != nil {
				return nil, err
			}
			ref, files[file] = *r, *r
		}
		if err := useStandIn(ctx, d, file, sf.face, ref); err != nil {
			return nil, err
		}
		changed = true
	}
	if !changed {
		return data, nil
	}
	var out bytes.Buffer
	if err := api.WriteContext(ctx, &out); err != nil {
		return nil, fmt.Errorf("write the document: %w", err)
	}
	return out.Bytes(), nil
}

// useStandIn makes d, a standard font's dictionary, the TrueType font file
// embeds: its encoding said outright (a TrueType font has no built-in
// one), its descriptor that of the stand-in.
func useStandIn(ctx *model.Context, d types.Dict, file string, f *face, fontFile types.IndirectRef) error {
	d.Update("Subtype", types.Name("TrueType"))
	d.Update("BaseFont", types.Name(file))
	enc, err := ctx.Dereference(d["Encoding"])
	if err != nil {
		return err
	}
	switch x := enc.(type) {
	case nil:
		d.Update("Encoding", standardEncodingDict(nil))
	case types.Name:
		if x == "StandardEncoding" {
			d.Update("Encoding", standardEncodingDict(nil))
		}
	case types.Dict:
		if x.NameEntry("BaseEncoding") == nil || *x.NameEntry("BaseEncoding") == "StandardEncoding" {
			var diffs types.Array
			if a, err := ctx.DereferenceArray(x["Differences"]); err == nil {
				diffs = a
			}
			d.Update("Encoding", standardEncodingDict(diffs))
		}
	}
	desc := f.desc
	fd := types.Dict{
		"Type": types.Name("FontDescriptor"), "FontName": types.Name(file),
		// Nonsymbolic: its glyphs are found by their names.
		"Flags":       types.Integer(desc.Flags&^4 | 32),
		"FontBBox":    types.NewIntegerArray(desc.FontBBox.Xmin, desc.FontBBox.Ymin, desc.FontBBox.Xmax, desc.FontBBox.Ymax),
		"ItalicAngle": types.Integer(desc.ItalicAngle), "Ascent": types.Integer(desc.Ascent),
		"Descent": types.Integer(desc.Descent), "CapHeight": types.Integer(desc.CapHeight),
		"StemV": types.Integer(desc.StemV), "FontFile2": fontFile,
	}
	ref, err := ctx.IndRefForNewObject(fd)
	if err != nil {
		return err
	}
	d.Update("FontDescriptor", *ref)
	return nil
}

// standardEncodingDict is an encoding of WinAnsiEncoding made
// StandardEncoding, then the differences given.
func standardEncodingDict(diffs types.Array) types.Dict {
	all := slices.Concat(standardDifferences, diffs)
	return types.Dict{"Type": types.Name("Encoding"), "BaseEncoding": types.Name("WinAnsiEncoding"), "Differences": all}
}
