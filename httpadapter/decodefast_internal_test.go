package httpadapter

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lettershop/lettershop"
	"github.com/lettershop/lettershop/memstore"
)

// fastBodies are bodies for the fast path's differential checks: good
// ones, and each of the problems the full check names.
var fastBodies = []string{
	`{"name":"n","count":3,"small":7,"ratio":0.5,"on":true,"tags":["a"],"pair":[1,2],
		"labels":{"k":"v"},"any":{"x":[1]},"inner":{"deep":[{"leaf":"l"}]},"Untaggd":"u","flat":"f"}`,
	`{"name":null,"count":null,"tags":null,"inner":null,"labels":{"k":null}}`,
	`{"count":1.5,"small":"7","ratio":"half"}`, `{"count":1e3}`, `{"count":-0}`, `{"count":99999999999999999999}`,
	`{"tags":"a","pair":{},"labels":[],"inner":[]}`, `{"pair":[1,2,3]}`, `{"small":300}`, `{"small":-1}`,
	`{"tags":[1],"labels":{"k":false},"inner":{"deep":[{},{"leaf":2,"stem":1}]}}`,
	`{"Name":"n","skipped":"s","Skipped":"s","hidden":"h","untaggd":"u"}`,
	`{"on":"true"}`, `{"on":true,"on":"x"}`, `{"name":"a","name":1}`, `{"name":1,"name":"a"}`,
	`{"when":"2026-03-02T10:00:00.5-05:00","since":"2026-03-02T15:00:00Z"}`,
	`{"when":"yesterday","since":1}`, `{"when":"2026-03-02T15:00:00\u005a"}`,
	`"text"`, `null`, `[]`, `{"name":`, "{\n\"name\": \"n\",\n}", `{} x`, " \n", `{}{}`, `{"a" 1}`,
	`{"name":"\u00e9\n\t\"\\\/"}`, `{"n\u0061me":"x"}`, `{"name":"\ud83d\ude00"}`, `{"name":"\ud83d"}`,
	`{"name":"\udc00x"}`, "{\"name\":\"\xff\"}", "{\"\xff\":1}", "{\"name\":\"a\x01\"}", `{"name":"\x"}`,
	`{"any":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	`{"ratio":01}`, `{"ratio":1.}`, `{"ratio":.5}`, `{"ratio":-}`, `{"ratio":1e}`, `{"ratio":tru}`, `{"on":nul}`,
	`{"inner":{"deep":[{"leaf":"l"},]}}`, `{"labels":{"a":"b",}}`, `{,}`, `[1,]`,
}

var fastLetter = `{"recipient":{"address":{"addressLine1":"742 Evergreen Terrace","lastLine":"Springfield, OR 97403"},"individual":{"fullName":"Marge"}},` +
	`"sender":{"address":{"addressLine1":"1600 Pennsylvania Avenue NW","lastLine":"Washington, DC 20500"},"organization":"Burns"},` +
	`"content":{"type":"asset","assetId":"ast_1"},"useType":"marketing","variables":[{"name":"name","value":"Marge"}],` +
	`"metadata":[{"key":"campaign","value":"spring"},{"key":1}],"sendDate":"2026-03-04","options":{"print":{"color":true}}}`

// TestFastCheckIsConservative holds the fast path to its promise: a body it
// takes is answered as the full check answers it (a body that fits its type
// but not its range, {"small":300}, fails in the typed decoding on both
// paths alike), and decoded to the same value.
func TestFastCheckIsConservative(t *testing.T) {
	for _, body := range fastBodies {
		checkFastAgainstFull[shapes](t, []byte(body))
		checkFastAgainstFull[lettershop.CreateLetterInput](t, []byte(body))
	}
	if !fastCheck([]byte(fastLetter), reflect.TypeFor[lettershop.CreateLetterInput]()) {
		t.Error("a well-formed letter is not taken by the fast path")
	}
	for i := range len(fastLetter) {
		checkFastAgainstFull[lettershop.CreateLetterInput](t, []byte(fastLetter[:i]))
		checkFastAgainstFull[lettershop.CreateLetterInput](t, []byte(fastLetter[:i]+"1"+fastLetter[i:]))
		checkFastAgainstFull[lettershop.CreateLetterInput](t, []byte(strings.Replace(fastLetter, fastLetter[i:i+1], "", 1)))
	}
	// Objects of more members than the fast path compares on its stack:
	// taken when no name repeats, left to the full check (which refuses
	// it) when one does, wherever the repeat is and whatever the type.
	var members []string
	for i := range 40 {
		members = append(members, fmt.Sprintf(`"k%d":"v"`, i))
	}
	big := "{" + strings.Join(members, ",") + "}"
	for _, tt := range []struct {
		body string
		fast bool
	}{
		{`{"labels":` + big + `}`, true},
		{`{"any":` + big + `}`, true},
		{`{"labels":` + strings.Replace(big, `"k39"`, `"k3"`, 1) + `}`, false},
		{`{"any":` + strings.Replace(big, `"k39"`, `"k38"`, 1) + `}`, false},
		{`{"any":` + strings.Replace(big, `"k1"`, `"k0"`, 1) + `}`, false},
		{`{"any":{"x":{"y":1,"y":2}}}`, false},
	} {
		if got := fastCheck([]byte(tt.body), reflect.TypeFor[shapes]()); got != tt.fast {
			t.Errorf("fastCheck(%.60s...) = %v, want %v", tt.body, got, tt.fast)
		}
		if err := decodeJSONChecked([]byte(tt.body), new(shapes)); (err == nil) != tt.fast {
			t.Errorf("the full check of %.60s... answers %v", tt.body, err)
		}
	}
	for _, body := range []string{
		`{"recipient":null,"sender":{"address":null,"individual":null},"metadata":null,"variables":[null,{"name":null}]}`,
		`{"recipient":{"address":{"addressLine1":"a"}},"recipient":{"individual":{"fullName":"b"}}}`,
		`{"metadata":[{"key":"a","value":1},{"key":"a","value":"b","x":1},[],"s",{"key":null}]}`,
		`{"options":{"print":{"color":1}}}`, `{"useType":"marketing","useType":"transactional"}`,
	} {
		checkFastAgainstFull[lettershop.CreateLetterInput](t, []byte(body))
		checkFastAgainstFull[lettershop.UpdateLetterInput](t, []byte(body))
	}
}

func checkFastAgainstFull[T any](t *testing.T, body []byte) {
	t.Helper()
	if !fastCheck(body, reflect.TypeFor[T]()) {
		return
	}
	var full, fast T
	errFull := decodeJSONChecked(body, &full)
	errFast := decodeJSON(body, &fast)
	if fmt.Sprint(errFull) != fmt.Sprint(errFast) {
		t.Errorf("%q: the fast path answers %v, the full check %v", body, errFast, errFull)
	}
	if diff := cmp.Diff(full, fast, cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
		t.Errorf("%q decoded differently (-full +fast):\n%s", body, diff)
	}
}

// FuzzFastCheck holds the fast path to its promise on any input.
func FuzzFastCheck(f *testing.F) {
	for _, b := range fastBodies {
		f.Add([]byte(b))
	}
	f.Add([]byte(fastLetter))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkFastAgainstFull[shapes](t, body)
		checkFastAgainstFull[lettershop.CreateLetterInput](t, body)
	})
}

// BenchmarkDecodeCreateLetter decodes the side-by-side benchmark's letter
// body: decodeJSON as served, and the full check alone for comparison.
func BenchmarkDecodeCreateLetter(b *testing.B) {
	body := []byte(`{"recipient":{"address":{"addressLine1":"742 Evergreen Terrace","addressLine2":"Apartment 2B, Rear Entrance by the Garage","lastLine":"Springfield, OR 97403-1234"},"individual":{"fullName":"Marge Bouvier Simpson"}},` +
		`"sender":{"address":{"addressLine1":"1600 Pennsylvania Avenue NW","addressLine2":"Office of Correspondence, Room 417","lastLine":"Washington, DC 20500-0003"},"individual":{"fullName":"Montgomery Charles Burns"}},` +
		`"content":{"type":"asset","assetId":"ast_01hzx8y7w6v5u4t3s2r1q0p9n8"},"useType":"marketing","variables":[{"name":"name","value":"Marge"}],` +
		`"metadata":[{"key":"campaign","value":"spring-renewal-2024"},{"key":"customerRef","value":"CUST-0004211937"},{"key":"batch","value":"batch-2024-05-14-morning-0007"},{"key":"template","value":"renewal-notice-v3-large-print"},{"key":"costCentre","value":"CC-7781-MARKETING-WEST"},{"key":"correlationId","value":"6f1c2b7e-3d94-4a8e-9b0f-2c5d7e8a1b34"},{"key":"requestedBy","value":"renewals-service@internal"},{"key":"notes","value":"Recipient prefers large print; do not fold enclosures; include reply envelope."}]}`)
	for _, c := range []struct {
		name   string
		decode func([]byte, any) error
	}{{"served", decodeJSON}, {"fullCheck", decodeJSONChecked}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var in lettershop.CreateLetterInput
				if err := c.decode(body, &in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeWrongShape decodes a letter body whose recipient is a
// number: its shape's problems alone, as decodeJSON tells them, and with
// the problems of the rest of it beside them, as a letter's route does.
func BenchmarkDecodeWrongShape(b *testing.B) {
	body := []byte(`{"recipient":5,"sender":{"address":{"addressLine1":"1600 Pennsylvania Avenue NW","lastLine":"Washington, DC 20500-0003"},"individual":{"fullName":"Montgomery Charles Burns"}},` +
		`"useType":"marketing","variables":[{"name":"name","value":"Marge"}],"metadata":[{"key":"campaign","value":"spring-renewal-2024"}]}`)
	svc := lettershop.New(memstore.New())
	b.Cleanup(func() { svc.Close() })
	problems := func(in any) map[string]string { return svc.InputProblems("acct_bench", in) }
	for _, c := range []struct {
		name     string
		problems func(any) map[string]string
		fields   int
	}{{"shapeOnly", nil, 1}, {"withTheRest", problems, 2}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var in lettershop.CreateLetterInput
				var e *lettershop.Error
				if err := decodeInput(body, &in, c.problems); !errors.As(err, &e) || len(e.Fields) != c.fields {
					b.Fatal(err)
				}
			}
		})
	}
}
