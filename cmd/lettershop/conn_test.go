package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawRequest sends raw bytes to the server at base and reads one answer.
func rawRequest(t *testing.T, base, raw string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() { _, _ = io.WriteString(c, raw) }()
	return readAnswer(t, c)
}

func readAnswer(t *testing.T, c net.Conn) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("read answer: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp, b
}

// wantProblem fails unless the answer is a problem+json with status.
func wantProblem(t *testing.T, what string, resp *http.Response, body []byte, status int) {
	t.Helper()
	var p struct {
		Type   string
		Status int
		Detail string
	}
	if resp.StatusCode != status || resp.Header.Get("Content-Type") != "application/problem+json" ||
		json.Unmarshal(body, &p) != nil || p.Status != status || p.Type == "" || p.Detail == "" {
		t.Errorf("%s: %d %s %s, want a %d problem", what, resp.StatusCode, resp.Header.Get("Content-Type"), body, status)
	}
}

// Answers net/http makes on its own, before the handler, are problems too.
func TestServerLevelAnswersAreProblems(t *testing.T) {
	base, _ := startServer(t)
	get := func(target string, headers ...string) string {
		return "GET " + target + " HTTP/1.1\r\nHost: x\r\nX-Api-Key: sk_test_1\r\n" + strings.Join(headers, "") + "Connection: close\r\n\r\n"
	}
	under := strings.Repeat("a", maxHeaderBytes-1024)
	over := strings.Repeat("a", maxHeaderBytes+5<<10)

	resp, body := rawRequest(t, base, get("/v1/letters", "X-Big: "+under+"\r\n"))
	if resp.StatusCode != http.StatusOK {
		t.Errorf("headers under the limit: %d %s", resp.StatusCode, body)
	}
	resp, body = rawRequest(t, base, get("/v1/letters", "X-Big: "+over+"\r\n"))
	wantProblem(t, "headers over the limit", resp, body, http.StatusRequestHeaderFieldsTooLarge)

	resp, body = rawRequest(t, base, get("/v1/letters?externalId="+under))
	if resp.StatusCode != http.StatusOK {
		t.Errorf("query under the limit: %d %s", resp.StatusCode, body)
	}
	resp, body = rawRequest(t, base, get("/v1/letters?externalId="+over))
	wantProblem(t, "query over the limit", resp, body, http.StatusRequestHeaderFieldsTooLarge)

	var params []string
	for i := range 20000 {
		params = append(params, fmt.Sprintf("p%d=1", i))
	}
	resp, body = rawRequest(t, base, get("/v1/letters?"+strings.Join(params, "&")))
	wantProblem(t, "thousands of parameters", resp, body, http.StatusRequestHeaderFieldsTooLarge)

	resp, body = rawRequest(t, base, "GET /v1/letters HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
	wantProblem(t, "malformed header", resp, body, http.StatusBadRequest)
	resp, body = rawRequest(t, base, "GET /v1/letters HTTP/1.1\r\n\r\n")
	wantProblem(t, "no Host", resp, body, http.StatusBadRequest)
	resp, body = rawRequest(t, base, "GET /v1/letters HTTP/2.5\r\nHost: x\r\n\r\n")
	wantProblem(t, "unknown HTTP version", resp, body, http.StatusHTTPVersionNotSupported)

	resp, body = rawRequest(t, base, get("/v1//letters"))
	wantProblem(t, "double slash", resp, body, http.StatusNotFound)
	resp, body = rawRequest(t, base, get("/v1/assets/../letters"))
	wantProblem(t, "dot segments", resp, body, http.StatusNotFound)
}

// dialAnswered opens a connection and sends one request on it; it returns
// the connection, still open, and the answer's status.
func dialAnswered(t *testing.T, base string) (net.Conn, *http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, "GET /v1/letters HTTP/1.1\r\nHost: x\r\nX-Api-Key: sk_test_1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, body := readAnswer(t, c)
	return c, resp, body
}

// untilServed dials until a connection is served, for a place given back
// by a closed connection: the server learns of the close on its own time.
func untilServed(t *testing.T, base string) {
	t.Helper()
	for range 500 {
		_, resp, _ := dialAnswered(t, base)
		if resp.StatusCode == http.StatusOK {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no connection was served after one was closed")
}

// A client address holds at most --max-conns-per-client connections; one
// more is answered 503 with a problem, and a place freed is taken again.
func TestMaxConnsPerClient(t *testing.T) {
	base, _ := startServer(t, "--max-conns-per-client", "2", "--rate-limit", "0")
	first, resp, body := dialAnswered(t, base)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("first connection: %d %s", resp.StatusCode, body)
	}
	if _, resp, body = dialAnswered(t, base); resp.StatusCode != http.StatusOK {
		t.Fatalf("second connection: %d %s", resp.StatusCode, body)
	}
	_, resp, body = dialAnswered(t, base)
	wantProblem(t, "third connection", resp, body, http.StatusServiceUnavailable)
	if resp.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	first.Close()
	untilServed(t, base)
}

// The server holds at most --max-conns connections in all.
func TestMaxConns(t *testing.T) {
	base, _ := startServer(t, "--max-conns", "3", "--max-conns-per-client", "0", "--rate-limit", "0")
	var conns []net.Conn
	for i := range 3 {
		c, resp, body := dialAnswered(t, base)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("connection %d: %d %s", i+1, resp.StatusCode, body)
		}
		conns = append(conns, c)
	}
	_, resp, body := dialAnswered(t, base)
	wantProblem(t, "fourth connection", resp, body, http.StatusServiceUnavailable)
	conns[0].Close()
	untilServed(t, base)
}
