//go:build soak

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// soakServer is one lettershop process, started again after each kill.
// Each start is a lifetime of its own, whose memory is measured apart: a
// restarted process begins small, and its peak says nothing of the one
// before.
type soakServer struct {
	name, bin, addr string
	args, env       []string
	logPath         string

	mu    sync.Mutex
	cmd   *exec.Cmd
	base  string
	lives []*soakLife
}

// soakLife is what was measured of one process.
type soakLife struct {
	pid            int
	started, ended time.Time
	// hwmKB is the process's VmHWM, its resident set's peak as the kernel
	// counts it, as last read; rssKB the largest VmRSS read.
	hwmKB, rssKB int64
	samples      int
}

func (s *soakServer) start(t *testing.T) {
	t.Helper()
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(s.bin, append([]string{"--addr", s.addr}, s.args...)...)
	cmd.Env = append(append(os.Environ(), "LETTERSHOP_TOKEN_KEY=soak-token-key-0123456789abcdef0123456789"), s.env...)
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(first, "listening on") {
		_ = cmd.Process.Kill()
		t.Fatalf("server %s did not start: %q %v", s.name, first, err)
	}
	go io.Copy(io.Discard, out)
	go func() { _ = cmd.Wait(); logf.Close() }()
	s.mu.Lock()
	s.cmd, s.base = cmd, "http://"+s.addr
	s.lives = append(s.lives, &soakLife{pid: cmd.Process.Pid, started: time.Now()})
	s.mu.Unlock()
}

// url is the server's base URL.
func (s *soakServer) url() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.base
}

// sample reads the running process's memory from /proc.
func (s *soakServer) sample() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sampleLocked()
}

func (s *soakServer) sampleLocked() {
	if s.cmd == nil || len(s.lives) == 0 {
		return
	}
	life := s.lives[len(s.lives)-1]
	hwm, rss, err := procMemory(life.pid)
	if err != nil {
		return
	}
	life.hwmKB = max(life.hwmKB, hwm)
	life.rssKB = max(life.rssKB, rss)
	life.samples++
}

// kill reads the process's memory a last time and sends SIGKILL: no
// shutdown, no draining.
func (s *soakServer) kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.sampleLocked()
	_ = s.cmd.Process.Kill()
	s.lives[len(s.lives)-1].ended = time.Now()
	s.cmd = nil
}

// lifetimes returns a copy of what was measured of each process.
func (s *soakServer) lifetimes() []soakLife {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]soakLife, len(s.lives))
	for i, l := range s.lives {
		out[i] = *l
	}
	return out
}

// procMemory reads VmHWM and VmRSS, in KiB, from /proc/PID/status.
func procMemory(pid int) (hwmKB, rssKB int64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		name, v, ok := strings.Cut(line, ":")
		if !ok || (name != "VmHWM" && name != "VmRSS") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", line, err)
		}
		if name == "VmHWM" {
			hwmKB = n
		} else {
			rssKB = n
		}
	}
	if hwmKB == 0 {
		// A process that has exited (a zombie) shows no memory.
		return 0, 0, fmt.Errorf("pid %d: no VmHWM", pid)
	}
	return hwmKB, rssKB, nil
}

// tmpWatch looks at the servers' TMPDIR: it must stay empty, since no
// request may leave a file behind or spill a body to disk.
type tmpWatch struct {
	dir string

	mu     sync.Mutex
	checks int
	most   int
	seen   map[string]bool
}

func (w *tmpWatch) check() {
	entries, err := os.ReadDir(w.dir)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.checks++
	if err != nil {
		if w.seen == nil {
			w.seen = map[string]bool{}
		}
		w.seen["(unreadable: "+err.Error()+")"] = true
		return
	}
	w.most = max(w.most, len(entries))
	for _, e := range entries {
		if w.seen == nil {
			w.seen = map[string]bool{}
		}
		if len(w.seen) < 20 {
			w.seen[filepath.Join(w.dir, e.Name())] = true
		}
	}
}

// report says what was found, and whether the directory stayed empty.
func (w *tmpWatch) report() (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.seen) == 0 {
		return fmt.Sprintf("TMPDIR %s empty at each of %d looks", w.dir, w.checks), true
	}
	names := make([]string, 0, len(w.seen))
	for n := range w.seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return fmt.Sprintf("TMPDIR %s held up to %d entries over %d looks: %s", w.dir, w.most, w.checks, strings.Join(names, ", ")), false
}

// serverLog is what a server's log says went wrong: its records at level
// ERROR, its request lines with a 5xx status (answers the server made,
// whether or not a client was there to read them), and those with a 499
// (requests the server saw cut off before it answered).
type serverLog struct {
	// canceled counts requests answered 499: cut off by their client,
	// which in the soak (it never hangs up) means by the server.
	errors, fivexx, canceled int
	first                    []string
}

func readServerLog(path string) serverLog {
	var out serverLog
	f, err := os.Open(path)
	if err != nil {
		out.errors, out.first = 1, []string{err.Error()}
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, " level=ERROR "):
			out.errors++
		case strings.Contains(line, " msg=request ") && strings.Contains(line, " status=5"):
			out.fivexx++
		case strings.Contains(line, " msg=request ") && strings.Contains(line, " status=499 "):
			out.canceled++
		default:
			continue
		}
		if len(out.first) < 6 {
			if len(line) > 400 {
				line = line[:400] + "..."
			}
			out.first = append(out.first, line)
		}
	}
	return out
}

// storedOutcomes reads from the schema what the account keeps under its
// idempotency keys: how many outcomes, the largest in bytes, and all of
// them in bytes.
func storedOutcomes(dsn, schema, account string) (n, largest, total int64, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return 0, 0, 0, err
	}
	defer conn.Close(ctx)
	err = conn.QueryRow(ctx, `SELECT count(*), coalesce(max(octet_length(result)), 0), coalesce(sum(octet_length(result)), 0)
		FROM `+pgx.Identifier{schema, "idempotency"}.Sanitize()+` WHERE account = $1`, account).Scan(&n, &largest, &total)
	return n, largest, total, err
}

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
