package letterpack

import "unique"

// Cut returns k with its own part cut to its first n bytes.
func Cut(k *Kept, n int) *Kept { return &Kept{data: k.data[:n], shared: k.shared} }

// Data is k's own part.
func Data(k *Kept) string { return k.data }

// Definitions is the packed definitions of k's shared part.
func Definitions(k *Kept) string { return k.shared.Value().definitions }

// WithDefinitions returns k with its shared part's definitions defs.
func WithDefinitions(k *Kept, defs string) *Kept {
	c := k.shared.Value()
	c.definitions = defs
	return &Kept{data: k.data, shared: unique.Make(c)}
}
