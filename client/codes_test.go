package client_test

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/httpadapter"
	"github.com/lettershop/lettershop/openapi"
)

// TestCodesAreTheServers holds the Code constants to the codes a server
// answers with: the Problem's code enumeration of the OpenAPI document,
// and the code the server answers each of the service's error Codes
// with. A code added on either side without the other fails here. The
// client imports no package of the module, so its constants are read from
// its source.
func TestCodesAreTheServers(t *testing.T) {
	consts := clientCodes(t)
	var got []string
	for _, v := range consts {
		got = append(got, v)
	}

	want, err := openapi.ProblemCodes()
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range serviceCodes(t) {
		if !slices.Contains(want, code) {
			want = append(want, code)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	for _, c := range want {
		if !slices.Contains(got, c) {
			t.Errorf("the server answers with code %q, which has no constant", c)
		}
	}
	for name, c := range consts {
		if !slices.Contains(want, c) {
			t.Errorf("%s = %q is no code the server answers with", name, c)
		}
	}
	if t.Failed() {
		t.Logf("constants: %v\nserver's:  %v", got, want)
	}
}

// serviceCodes returns the code the server answers each of the service's
// error Codes with, a CodeCanceled as to a client that went away.
func serviceCodes(t *testing.T) []string {
	var codes []string
	for c := lettershop.Code(0); !strings.HasPrefix(c.String(), "Code("); c++ {
		r := httptest.NewRequest("GET", "/v1/letters", nil)
		if c == lettershop.CodeCanceled {
			ctx, cancel := context.WithCancel(r.Context())
			cancel()
			r = r.WithContext(ctx)
		}
		w := httptest.NewRecorder()
		httpadapter.WriteError(w, r, &lettershop.Error{Code: c, Message: c.String(), Err: context.Canceled})
		var p struct{ Code string }
		if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.Code == "" {
			t.Fatalf("%v is answered %d %s: %v", c, w.Code, w.Body, err)
		}
		codes = append(codes, p.Code)
	}
	if len(codes) < 10 {
		t.Fatalf("the service has %d error codes; the loop over them is broken", len(codes))
	}
	return codes
}

// clientCodes reads the client's exported constants named Code... and
// their values from its source.
func clientCodes(t *testing.T) map[string]string {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	consts := map[string]string{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !strings.HasPrefix(n.Name, "Code") || !n.IsExported() {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s: %s is not a string literal", name, n.Name)
					}
					consts[n.Name], _ = strconv.Unquote(lit.Value)
				}
			}
		}
	}
	if len(consts) == 0 {
		t.Fatal("no Code constants found in the client's source")
	}
	return consts
}
