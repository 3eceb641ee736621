package httpadapter_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lettershop/lettershop/httpadapter"
)

// A body that stops arriving is answered 408 once its time is up, well
// before the server's own read timeout; a body sent whole is served.
func TestSlowBodyTimesOut(t *testing.T) {
	ts := newTestServer(t, unchecked(), withAdapter(httpadapter.WithBodyReadRate(1<<20, 200*time.Millisecond)))
	send := func(head, body string) (*http.Response, []byte) {
		c, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, head+body); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	body := `{"name":"slow"}`
	head := func(n int) string {
		return "POST /v1/assets HTTP/1.1\r\nHost: x\r\nX-Api-Key: " + keyA + "\r\nContent-Length: " + strconv.Itoa(n) + "\r\n\r\n"
	}
	resp, b := send(head(len(body)), body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("whole body: %d %s", resp.StatusCode, b)
	}
	resp, b = send(head(len(body)+10), body)
	var p struct {
		Type   string
		Status int
	}
	if resp.StatusCode != http.StatusRequestTimeout || resp.Header.Get("Content-Type") != "application/problem+json" ||
		json.Unmarshal(b, &p) != nil || p.Type != "request-timeout" {
		t.Fatalf("stalled body: %d %s %s, want a 408 problem", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	if !resp.Close {
		t.Error("the connection of a stalled body is kept open")
	}
	var page struct{ Items []json.RawMessage }
	ts.get(t, "/assets").wantStatus(t, http.StatusOK).decode(t, &page)
	if len(page.Items) != 1 {
		t.Errorf("%d assets, want the one sent whole", len(page.Items))
	}
}
