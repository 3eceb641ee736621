package storage_test

import (
	"reflect"
	"testing"

	"github.com/lettershop/lettershop/storage"
)

// A LetterDoc holds no pointers but its slices' and strings', so that a
// store can unpack into one a caller reuses.
func TestLetterDocHoldsNoPointers(t *testing.T) {
	var walk func(path string, typ reflect.Type)
	walk = func(path string, typ reflect.Type) {
		switch typ.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
			t.Errorf("%s is a %s", path, typ.Kind())
		case reflect.Slice:
			walk(path+"[]", typ.Elem())
		case reflect.Struct:
			if typ.PkgPath() == "time" {
				return
			}
			for i := range typ.NumField() {
				walk(path+"."+typ.Field(i).Name, typ.Field(i).Type)
			}
		}
	}
	walk("LetterDoc", reflect.TypeFor[storage.LetterDoc]())
}

func TestLetterDocResetKeepsStorage(t *testing.T) {
	d := storage.LetterDoc{
		Life:      storage.LetterLife{Stage: "mailed"},
		Variables: storage.LetterVariables{Has: true, List: []storage.LetterVariable{{Name: "a"}}},
		Events:    []storage.LetterEvent{{ID: "e"}, {ID: "f"}},
		HasEvents: true,
		Sender: storage.LetterParty{
			HasCorrections: true, Corrections: []storage.LetterCorrection{{Name: "c"}},
			HasAnalysis: true, Analysis: storage.LetterAddressAnalysis{DpvFootnotes: []string{"AA"}},
		},
	}
	events := &d.Events[0]
	d.Reset()
	if d.Life != (storage.LetterLife{}) || d.HasEvents || d.Variables.Has || d.Sender.HasCorrections || d.Sender.HasAnalysis {
		t.Errorf("Reset left values: %+v", d)
	}
	if len(d.Events) != 0 || len(d.Variables.List) != 0 || len(d.Sender.Corrections) != 0 || len(d.Sender.Analysis.DpvFootnotes) != 0 {
		t.Errorf("Reset left elements: %+v", d)
	}
	if cap(d.Events) != 2 || &d.Events[:1][0] != events || cap(d.Variables.List) != 1 || cap(d.Sender.Corrections) != 1 {
		t.Error("Reset let go of its slices' storage")
	}
}
