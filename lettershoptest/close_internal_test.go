package lettershoptest

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TimeWaitOn is timeWaitOn, for the package's black-box tests.
var TimeWaitOn = timeWaitOn

// timeWaitOn counts the TCP connections in TIME_WAIT whose local port is
// port (Linux's /proc/net/tcp and tcp6); ok is false where there is no
// such file.
func timeWaitOn(port int) (n int, ok bool) {
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		ok = true
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) < 4 || fs[3] != "06" { // 06: TIME_WAIT
				continue
			}
			_, hexPort, _ := strings.Cut(fs[1], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 32); err == nil && int(p) == port {
				n++
			}
		}
		f.Close()
	}
	return n, ok
}

// BenchmarkCloseOrder is a server of the helper's kind (a keep-alive
// client, a few requests) closed as httptest.Server.Close does alone,
// the server first (server-first), beside closeClientsFirst
// (clients-first), alternating within each op so that the machine's
// state weighs on both alike (µs/op: a server made, used and closed).
// server-timewait/op is the connections left
// in TIME_WAIT on the server's port, each a port the next listen's search
// passes over for a minute:
//
//	go test ./lettershoptest -run '^$' -bench CloseOrder -benchtime 200x
func BenchmarkCloseOrder(b *testing.B) {
	if _, ok := timeWaitOn(0); !ok {
		b.Skip("no /proc/net/tcp")
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "{}") })
	orders := []struct {
		name  string
		close func(*httptest.Server)
	}{{"server-first", (*httptest.Server).Close}, {"clients-first", closeClientsFirst}}
	held := make([]int, len(orders))
	took := make([]time.Duration, len(orders))
	for b.Loop() {
		for i, o := range orders {
			t0 := time.Now()
			hs := httptest.NewServer(h)
			for range 3 {
				resp, err := hs.Client().Get(hs.URL)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			u, _ := url.Parse(hs.URL)
			port, _ := strconv.Atoi(u.Port())
			o.close(hs)
			took[i] += time.Since(t0)
			n, _ := timeWaitOn(port)
			held[i] += n
		}
	}
	for i, o := range orders {
		b.ReportMetric(float64(held[i])/float64(b.N), o.name+"-server-timewait/op")
		b.ReportMetric(float64(took[i].Microseconds())/float64(b.N), o.name+"-µs/op")
	}
}
