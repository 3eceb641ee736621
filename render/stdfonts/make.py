# Makes the fonts of this directory from Liberation 2 (Debian's
# fonts-liberation2), metric-compatible with Helvetica, Times and Courier:
# subset to Latin (Basic Latin, Latin-1, Latin Extended-A) and the
# punctuation and symbols of the PDF standard encodings, without hinting,
# and renamed, as the SIL Open Font License asks of a modified version of
# a font with a Reserved Font Name. Run: /usr/bin/python3 make.py
from fontTools import subset
from fontTools.ttLib import TTFont

SRC = "/usr/share/fonts/truetype/liberation2/"
UNICODES = ("U+0020-007E,U+00A0-017F,U+0192,U+02C6-02DD,U+2013-2014,U+2018-201E,"
            "U+2020-2022,U+2026,U+2030,U+2039-203A,U+2044,U+20AC,U+2122,U+2212,U+FB01-FB02")
FAMILIES = {"Sans": "LettershopSans", "Serif": "LettershopSerif", "Mono": "LettershopMono"}
STYLES = {"Regular": "Regular", "Bold": "Bold", "Italic": "Italic", "BoldItalic": "Bold Italic"}

for fam, new in FAMILIES.items():
    for style, words in STYLES.items():
        f = TTFont(SRC + "Liberation%s-%s.ttf" % (fam, style))
        opts = subset.Options()
        opts.hinting = False
        opts.layout_features = []
        opts.glyph_names = True
        opts.notdef_outline = True
        opts.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
        s = subset.Subsetter(opts)
        s.populate(unicodes=subset.parse_unicodes(UNICODES))
        s.subset(f)
        ps = "%s-%s" % (new, style)
        full = "%s %s" % (new, words) if style != "Regular" else new
        for rec in f["name"].names:
            if rec.nameID == 1:
                rec.string = new
            elif rec.nameID == 3:
                rec.string = "lettershop: " + ps
            elif rec.nameID == 4:
                rec.string = full
            elif rec.nameID == 6:
                rec.string = ps
        f["name"].names = [r for r in f["name"].names if r.nameID not in (16, 17, 18, 21, 22)]
        f.save(ps + ".ttf")
